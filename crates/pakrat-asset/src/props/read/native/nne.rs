//! `UNNEModelData` (NNE plugin): the class writes no property stream, only
//! its own data: target runtimes, the imported file (type, bytes, extra
//! files), runtime settings, the file's GUID and each runtime's model
//! data. Layout and versions (`UE::NNE::ModelDataVersion`): UE
//! `NNEModelData.cpp`, cross-checked on the UE 5.8/6.0 fixture.

use super::field;
use crate::props::read::Ctx;
use crate::props::{PropType, Property, Value};
use pakrat_codec::fstring::read_fstring;
use pakrat_io::{Guid, Reader, Result};

/// `UE::NNE::ModelDataVersion`.
const NNE_MODEL_DATA: Guid = Guid {
    words: [0x9513_202E, 0xEBA1_B279, 0xF17F_E5BA, 0xAB90_C3F2],
};
/// The newest version pakrat reads (V5: runtime settings).
const LATEST: i32 = 5;
/// Blobs up to this size are listed byte by byte; larger ones (a model
/// file can be hundreds of megabytes) are given by size only, so a value
/// never takes much more memory than the bytes it stands for.
const MAX_LISTED_BLOB: usize = 1 << 20;

fn blob_ty() -> PropType {
    PropType::Array(Box::new(PropType::Byte(None)))
}

/// `count` bytes of an opaque file (a model in a runtime's own format).
pub(super) fn blob(r: &mut Reader<'_>, count: u64, what: &str) -> Result<Value> {
    let count = r.check_count(count.min(i64::MAX as u64) as i64, 1, what)?;
    let bytes = r.bytes(count as u64, what)?;
    if bytes.len() > MAX_LISTED_BLOB {
        return Ok(Value::Skipped {
            size: bytes.len() as u64,
            reason: format!(
                "{what}: {} bytes of a model file, not listed byte by byte",
                bytes.len()
            ),
        });
    }
    Ok(Value::Array(
        bytes.iter().map(|b| Value::UInt(u64::from(*b))).collect(),
    ))
}

/// A blob's size: `u64` from V4 (models over 2 GB), `i32` before.
fn blob_size(r: &mut Reader<'_>, wide: bool, what: &str) -> Result<u64> {
    if wide {
        return r.u64(what);
    }
    let at = r.offset();
    let n = r.i32(what)?;
    u64::try_from(n).map_err(|_| pakrat_io::Error::invalid(at, format!("{what} is {n}")))
}

impl Ctx<'_, '_> {
    /// The model data: the whole export.
    pub(super) fn nne_model_data(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let version = if self.asset.versions.custom_from_package {
            self.asset.versions.custom(NNE_MODEL_DATA).unwrap_or(0)
        } else {
            LATEST
        };
        if !(0..=LATEST).contains(&version) {
            return Err(r.unsupported(format!(
                "NNE model data version {version} (pakrat reads 0..={LATEST})"
            )));
        }
        let wide = version >= 4;
        let str_list = PropType::Array(Box::new(PropType::Str));
        let blob_map = || PropType::Map(Box::new(PropType::Str), Box::new(blob_ty()));
        let mut out = Vec::with_capacity(8);
        if version >= 2 {
            let n = r.i32_count("target runtimes", 4)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(Value::Str(read_fstring(r, "target runtime")?));
            }
            out.push(field("TargetRuntimes", str_list, Value::Array(v)));
        }
        let file_type = read_fstring(r, "model file type")?;
        out.push(field("FileType", PropType::Str, Value::Str(file_type)));
        let n = blob_size(r, wide, "model file size")?;
        out.push(field("FileData", blob_ty(), blob(r, n, "model file")?));
        if version >= 3 {
            out.push(field(
                "AdditionalFileData",
                blob_map(),
                self.blob_map(r, wide, "additional file")?,
            ));
        }
        if version >= 5 {
            out.push(field(
                "RuntimeSettings",
                blob_map(),
                self.blob_map(r, wide, "runtime settings")?,
            ));
        }
        let id = r.guid("model file id")?;
        out.push(field(
            "FileId",
            PropType::Struct("Guid".into()),
            Value::Guid(id),
        ));
        if version >= 2 {
            let ty = PropType::Map(
                Box::new(PropType::Str),
                Box::new(PropType::Struct("NNEModelDataEntry".into())),
            );
            out.push(field("ModelData", ty, self.model_data(r, version)?));
        } else {
            let v = self.blob_map(r, false, "model data")?;
            out.push(field("ModelData", blob_map(), v));
        }
        Ok(out)
    }

    /// `TMap<FString, TArray<uint8>>` (V4+: 64-bit sizes).
    fn blob_map(&mut self, r: &mut Reader<'_>, wide: bool, what: &str) -> Result<Value> {
        let n = r.i32(what)?;
        let n = r.check_count(i64::from(n), 8, what)?;
        let mut m = Vec::with_capacity(n);
        for _ in 0..n {
            let k = read_fstring(r, what)?;
            let size = blob_size(r, wide, what)?;
            m.push((Value::Str(k), blob(r, size, what)?));
        }
        Ok(Value::Map(m))
    }

    /// Each runtime's data (V2+): name, memory alignment, size, bytes.
    fn model_data(&mut self, r: &mut Reader<'_>, version: i32) -> Result<Value> {
        let n = r.i32_count("model data", 12)?;
        let mut m = Vec::with_capacity(n);
        for _ in 0..n {
            let name = read_fstring(r, "model data runtime")?;
            let align = r.u32("model data alignment")?;
            let size = blob_size(r, version >= 3, "model data size")?;
            let data = blob(r, size, "model data")?;
            m.push((
                Value::Str(name),
                Value::Struct(vec![
                    field(
                        "MemoryAlignment",
                        PropType::UInt32,
                        Value::UInt(u64::from(align)),
                    ),
                    field("Data", blob_ty(), data),
                ]),
            ));
        }
        Ok(Value::Map(m))
    }
}
