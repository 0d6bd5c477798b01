//! The global ScriptObjects table.

use std::collections::HashMap;

use pakrat_codec::names::{read_name_batch, read_name_batch_parts, BatchName, MappedName};
use pakrat_io::{Error, Reader, Result};
use pakrat_iostore::container::Container;
use pakrat_iostore::toc::ChunkType;
use serde::Serialize;

use super::ObjectIndex;

/// One `FScriptObjectEntry` (32 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptObject {
    /// Name in the global name map.
    pub name: MappedName,
    /// Its own index value (what imports refer to).
    pub global_index: ObjectIndex,
    /// Outer object (Null for packages such as `/Script/Engine`).
    pub outer: ObjectIndex,
    /// Class of the class default object, for CDOs.
    pub cdo_class: ObjectIndex,
}

/// The global ScriptObjects table.
#[derive(Clone, Debug, Default)]
pub struct ScriptObjects {
    /// Global name map.
    pub names: Vec<BatchName>,
    /// Entries in file order.
    pub objects: Vec<ScriptObject>,
    by_index: HashMap<u64, usize>,
}

impl ScriptObjects {
    /// UE5: the ScriptObjects chunk (`NameBatch; TArray<FScriptObjectEntry>`).
    pub fn parse(data: &[u8]) -> Result<Self> {
        let mut r = Reader::new(data);
        let names = read_name_batch(&mut r)?;
        Self::finish(names, r)
    }

    /// UE4: LoaderInitialLoadMeta (`TArray<FScriptObjectEntry>`) with the
    /// LoaderGlobalNames and LoaderGlobalNameHashes chunks.
    pub fn parse_ue4(meta: &[u8], names: &[u8], hashes: &[u8]) -> Result<Self> {
        let names = read_name_batch_parts(Reader::new(names), Some(Reader::new(hashes)))?;
        Self::finish(names, Reader::new(meta))
    }

    fn finish(names: Vec<BatchName>, mut r: Reader<'_>) -> Result<Self> {
        let n = i64::from(r.i32("script object count")?);
        let n = r.check_count(n, 32, "script object count")?;
        let mut objects = Vec::with_capacity(n);
        let mut by_index = HashMap::with_capacity(n);
        for i in 0..n {
            let o = ScriptObject {
                name: MappedName::read(&mut r)?,
                global_index: ObjectIndex(r.u64("script object index")?),
                outer: ObjectIndex(r.u64("script object outer")?),
                cdo_class: ObjectIndex(r.u64("script object CDO class")?),
            };
            by_index.entry(o.global_index.0).or_insert(i);
            objects.push(o);
        }
        if r.remaining() != 0 {
            return Err(Error::invalid(
                r.offset(),
                format!(
                    "{} unexpected bytes after the script objects",
                    r.remaining()
                ),
            ));
        }
        Ok(ScriptObjects {
            names,
            objects,
            by_index,
        })
    }

    /// Add an entry (kept when its index is new): a stand-in for an object
    /// of a module whose global container is not at hand. `name` joins the
    /// global name map when it is not there yet.
    pub fn insert(&mut self, name: &str, global_index: u64, outer: u64, cdo_class: u64) {
        if self.by_index.contains_key(&global_index) {
            return;
        }
        let at = match self.names.iter().position(|n| n.text == name) {
            Some(i) => i,
            None => {
                self.names.push(BatchName {
                    text: name.to_string(),
                    wide: false,
                    stored_hash: None,
                });
                self.names.len() - 1
            }
        };
        self.by_index.insert(global_index, self.objects.len());
        self.objects.push(ScriptObject {
            name: MappedName {
                index: at as u32,
                kind: pakrat_codec::names::NameMapKind::Global,
                number: 0,
            },
            global_index: ObjectIndex(global_index),
            outer: ObjectIndex(outer),
            cdo_class: ObjectIndex(cdo_class),
        });
    }

    /// The entry with this index value.
    pub fn get(&self, index: ObjectIndex) -> Option<&ScriptObject> {
        self.by_index
            .get(&index.0)
            .and_then(|&i| self.objects.get(i))
    }

    /// The object's name (`None` if unknown).
    pub fn name(&self, index: ObjectIndex) -> Option<String> {
        self.get(index).and_then(|o| o.name.resolve(&self.names))
    }

    /// The full object path, e.g. `/Script/Engine.Texture2D` (outer chain
    /// followed at most 32 levels; `.` after the package, `:` below objects).
    pub fn path(&self, index: ObjectIndex) -> Option<String> {
        let mut parts = Vec::new();
        let mut cur = index;
        for _ in 0..32 {
            let o = self.get(cur)?;
            parts.push(o.name.resolve(&self.names)?);
            if o.outer.is_null() {
                parts.reverse();
                let mut s = String::new();
                for (i, p) in parts.iter().enumerate() {
                    match i {
                        0 => {}
                        1 => s.push('.'),
                        _ => s.push(':'),
                    }
                    s.push_str(p);
                }
                return Some(s);
            }
            cur = o.outer;
        }
        None
    }
}

/// One package of a container: where it is and its parsed header (or why it
/// Load the script objects of a global container (UE5 ScriptObjects chunk,
/// or the UE4 LoaderInitialLoadMeta + LoaderGlobalNames + hashes chunks).
pub fn load_script_objects(global: &Container) -> Result<ScriptObjects> {
    let path = global.path().to_path_buf();
    if let Some(i) = global.find_by_type(ChunkType::ScriptObjects) {
        return ScriptObjects::parse(&global.read_chunk(i)?).map_err(|e| e.in_file(&path));
    }
    let find = |t: ChunkType| {
        global.find_by_type(t).ok_or_else(|| {
            Error::Other(format!(
                "{}: no ScriptObjects chunk (UE5) nor {t} chunk (UE4): not a global container",
                path.display()
            ))
        })
    };
    let meta = global.read_chunk(find(ChunkType::LoaderInitialLoadMeta)?)?;
    let names = global.read_chunk(find(ChunkType::LoaderGlobalNames)?)?;
    let hashes = global.read_chunk(find(ChunkType::LoaderGlobalNameHashes)?)?;
    ScriptObjects::parse_ue4(&meta, &names, &hashes).map_err(|e| e.in_file(&path))
}
