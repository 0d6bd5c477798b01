//! UE4.25+/UE5 `AnimSequence`: the header of its cooked compressed data,
//! enough to name the bone compression codec and the tracks. No codec's
//! key data is decoded yet: an animation is reported with the codec that
//! would be needed.
//!
//! After the properties: the skeleton's GUID (`UAnimationAsset`),
//! `FStripDataFlags`, `bSerializeCompressedData`
//! (`i32` bool), then (`SerializeCompressedData`, UE 4.25+)
//! `CompressedRawDataSize`, the track → skeleton bone map
//! (`TArray<i32>`), the compressed curve names (`TArray<FName>`), the
//! byte stream (`i32` size, `i32` bool "in bulk data", the bytes or a bulk
//! data header), the bone codec's DDC handle and the curve codec's path
//! (`FString`s), the curve byte stream; the codec's own header follows.
//! Facts: UE `AnimSequence.cpp`, `AnimCompressionTypes.cpp`; CUE4Parse
//! `UAnimSequence.cs` (`SerializeCompressedData3`), `FSmartName.cs`.

use pakrat_asset::bulk;
use pakrat_asset::props::{Asset, Schemas, Value};
use pakrat_io::{Error, Result};

use super::buffers::bool32;
use super::prop;
use super::skeleton::{fname, native};

/// What the compressed header of an animation says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnimInfo {
    /// Object name.
    pub name: String,
    /// Full object path.
    pub path: String,
    /// `Skeleton`: the skeleton asset's path.
    pub skeleton: Option<String>,
    /// `SequenceLength` in seconds.
    pub length: f32,
    /// `RateScale`.
    pub rate_scale: f32,
    /// Track → skeleton bone index.
    pub track_to_bone: Vec<i32>,
    /// Compressed curve names.
    pub curve_names: Vec<String>,
    /// Bytes of the compressed bone data.
    pub bone_bytes: usize,
    /// The bone compression codec (its DDC handle: the codec object's path
    /// in the compression settings, e.g. `AnimationCompressionLibraryDatabase`
    /// or `ACLDefaultCodec`).
    pub bone_codec: String,
    /// The curve compression codec's path.
    pub curve_codec: String,
    /// Bytes of the compressed curve data.
    pub curve_bytes: usize,
}

fn float(v: Option<&Value>) -> Option<f32> {
    match v? {
        Value::Float(f) => Some(*f),
        Value::Double(d) => Some(*d as f32),
        _ => None,
    }
}

/// Read the compressed-data header of animation export `index`.
pub fn read_anim_sequence(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
) -> Result<AnimInfo> {
    let (p, mut r) = native(asset, index, schemas, "AnimSequence")?;
    let e = &asset.exports[index];
    let fail = |err: Error| Error::Other(format!("{}: {err}", e.path));
    let mut a = AnimInfo {
        name: e.name.clone(),
        path: e.path.clone(),
        skeleton: match prop(&p, "Skeleton") {
            Some(Value::Object(o)) => o.clone(),
            _ => None,
        },
        length: float(prop(&p, "SequenceLength")).unwrap_or(0.0),
        rate_scale: float(prop(&p, "RateScale")).unwrap_or(1.0),
        ..Default::default()
    };
    let r = &mut r;
    r.skip(16, "SkeletonGuid").map_err(fail)?;
    let strip = r.array::<2>("animation strip flags").map_err(fail)?;
    if strip[0] & 1 == 0 {
        return Err(fail(r.invalid(
            "the animation keeps its editor data (an uncooked package); only cooked animations are read",
        )));
    }
    if !bool32(r, "bSerializeCompressedData").map_err(fail)? {
        return Err(fail(r.invalid("the animation holds no compressed data")));
    }
    (|| -> Result<()> {
        r.i32("CompressedRawDataSize")?;
        let n = r.i32_count("track map", 4)?;
        for _ in 0..n {
            a.track_to_bone.push(r.i32("bone tree index")?);
        }
        let n = r.i32_count("curve names", 8)?;
        for _ in 0..n {
            a.curve_names.push(fname(asset, r, "curve name")?);
        }
        let bytes = r.i32_count("compressed bytes", 0)?;
        a.bone_bytes = bytes;
        if bool32(r, "bUseBulkDataForLoad")? {
            bulk::read_ref(asset, index, r)?;
        } else {
            r.skip(bytes as u64, "compressed byte stream")?;
        }
        a.bone_codec = pakrat_codec::fstring::read_fstring(r, "bone codec")?;
        a.curve_codec = pakrat_codec::fstring::read_fstring(r, "curve codec")?;
        a.curve_bytes = r.i32_count("curve bytes", 1)?;
        Ok(())
    })()
    .map_err(fail)?;
    Ok(a)
}

/// Why `a` cannot be exported: its bone codec is not decoded (none is).
pub fn anim_problem(a: &AnimInfo) -> String {
    format!(
        "codec {} not decoded ({} bytes of compressed bone data, {} tracks)",
        if a.bone_codec.is_empty() {
            "(unnamed)"
        } else {
            &a.bone_codec
        },
        a.bone_bytes,
        a.track_to_bone.len()
    )
}
