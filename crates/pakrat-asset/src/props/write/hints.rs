//! What decoding saw that the property model does not hold, kept beside it
//! so that an unedited export encodes to its exact bytes.
//!
//! Everything is keyed by a value's path in the tree (`/Name[0]` for a
//! property, `#3` for a container element, `{3k` / `{3v` for a map entry,
//! `?` for an optional's value), so a hint follows its value through edits
//! elsewhere and is dropped (the canonical encoding is used) when the
//! value it describes changed.

use crate::props::{PropType, Value};
use std::collections::{HashMap, HashSet};

/// A tag as stored: its bytes (name to the last extension byte) and what
/// it decoded to. Used only while the property still has that type,
/// index and bool value; the size field is rewritten.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TagHint {
    pub bytes: Vec<u8>,
    /// Where the `i32` size sits in `bytes`.
    pub size_at: usize,
    pub ty: PropType,
    pub index: u32,
    pub bool_value: bool,
    /// The 5.4+ "binary or native" flag.
    pub native: bool,
}

/// Write hints of one export: what the model does not say about how its
/// property stream was laid out.
///
/// Built by [`crate::props::decode_export_for_write`]; an empty
/// `WriteHints` (the default) gives the canonical encoding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteHints {
    /// Bytes the object stream starts with (tagged 5.2+: the class
    /// serialization control byte and its operation).
    pub(crate) object_prefix: Option<Vec<u8>>,
    /// Bytes between the properties and the native data (the object GUID
    /// flag and GUID), as stored.
    pub(crate) trailer: Option<Vec<u8>>,
    /// Tags as stored, by path.
    pub(crate) tags: HashMap<String, TagHint>,
    /// Unversioned values that were written although they are zero (the
    /// canonical form masks every zero value).
    pub(crate) written_zero: HashSet<String>,
    /// The package a struct or enum is spelled with in the export's 5.4+
    /// type names (`Vector` → `/Script/CoreUObject`), for new tags.
    pub(crate) type_packages: HashMap<String, String>,
    /// Structs the export's tags mark as natively serialized although
    /// pakrat has no layout for them (their tags are read inside).
    pub(crate) native_structs: HashSet<String>,
    /// Headers of unversioned streams with no values, as stored (they skip
    /// every property of the schema, which may be unknown).
    pub(crate) empty_headers: HashMap<String, Vec<u8>>,
    /// `FString`s not spelled the canonical way, by path and their
    /// ordinal among the strings of that path: (string, bytes).
    pub(crate) strings: HashMap<(String, u32), (String, Vec<u8>)>,
    /// Strings seen per path so far (while recording).
    pub(crate) string_counts: HashMap<String, u32>,
    /// Values kept as bytes: skipped values, and native structs pakrat
    /// has no encoder for, with the value they decoded to.
    pub(crate) raw: HashMap<String, (Value, Vec<u8>)>,
}

impl WriteHints {
    /// Note an `FString` read at `path`, kept when its bytes are not the
    /// canonical spelling.
    pub(crate) fn string_read(&mut self, path: &str, s: &str, raw: &[u8]) {
        let n = self.string_counts.entry(path.to_string()).or_insert(0);
        let ordinal = *n;
        *n += 1;
        let mut w = pakrat_io::Writer::new();
        super::fstring(&mut w, s);
        if w.as_slice() != raw {
            self.strings
                .insert((path.to_string(), ordinal), (s.to_string(), raw.to_vec()));
        }
    }

    /// Only what names types (the packages of structs and enums in type
    /// names, which structs are native), without anything of the stored
    /// layout: what encoding values
    /// that were never stored needs.
    pub fn spellings_only(&self) -> WriteHints {
        WriteHints {
            type_packages: self.type_packages.clone(),
            native_structs: self.native_structs.clone(),
            ..WriteHints::default()
        }
    }

    /// Number of values kept as their stored bytes (skipped values and
    /// native structs without an encoder).
    pub fn raw_values(&self) -> usize {
        self.raw.len()
    }

    /// Paths of the values kept as their stored bytes.
    pub fn raw_paths(&self) -> impl Iterator<Item = &str> {
        self.raw.keys().map(String::as_str)
    }
}
