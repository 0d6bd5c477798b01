//! The property encoder and the package writer over any bytes.
//!
//! * Writer symmetry: an export's data decoded (tagged UE 5.8 and UE 4.27
//!   tag layouts, unversioned against a small schema) with its write hints,
//!   encoded again, and decoded again gives the same tree; encoded without
//!   the hints (the canonical form) too.
//! * Packages: the bytes opened as a legacy `.uasset` (exports after the
//!   header), written back by `edit::write_edited` with no edits gives the
//!   same bytes, and with every export given back as an edit ends with
//!   bytes or an error, never a panic. Errors must say something
//!   (`pakrat_fuzz::ok`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::edit::{write_edited, ExportEdit};
use pakrat_asset::props::{
    decode_export, decode_export_for_write, encode_properties, open, Asset, WriteHints,
};

use pakrat_fuzz::props::{asset, schemas, Fixed};

/// Encode `p` with `hints`; when it encodes, the bytes (with the old
/// native tail) must decode to the same tree.
fn symmetric(a: &Asset<'_>, s: &Fixed, p: &pakrat_asset::props::ExportProps, hints: &WriteHints) {
    let Some(mut bytes) = pakrat_fuzz::ok(encode_properties(a, 0, s, p, hints)) else {
        return;
    };
    bytes.extend_from_slice(&a.exports[0].data[p.native_start as usize..]);
    let mut b = a.clone();
    b.exports[0].data = &bytes;
    let q = decode_export(&b, 0, s);
    // Compared as text: a NaN is not equal to itself.
    assert_eq!(
        format!("{:?}", q.properties),
        format!("{:?}", p.properties),
        "decode -> encode -> decode changed the tree"
    );
}

fuzz_target!(|data: &[u8]| {
    let s = schemas();
    for (ue4, ue5, unversioned) in [(522, 1018, false), (522, 1018, true), (522, 0, false)] {
        let a = asset(data, ue4, ue5, unversioned);
        let (p, hints) = decode_export_for_write(&a, 0, &s);
        if p.error.is_some() || p.native_start as usize > data.len() {
            continue;
        }
        symmetric(&a, &s, &p, &hints);
        symmetric(&a, &s, &p, &hints.spellings_only());
    }
    if let Some(o) = pakrat_fuzz::ok(open::open_legacy_bytes(
        "fuzz.uasset",
        data.to_vec(),
        None,
        None,
    )) {
        let out = write_edited(&o, &s, &[]).expect("no edits always writes");
        assert_eq!(out.main, data, "a package without edits changed");
        let a = o.asset();
        let edits: Vec<ExportEdit> = (0..a.exports.len().min(8))
            .map(|i| ExportEdit {
                export: i,
                props: decode_export_for_write(&a, i, &s).0,
            })
            .collect();
        pakrat_fuzz::ok(write_edited(&o, &s, &edits));
    }
});
