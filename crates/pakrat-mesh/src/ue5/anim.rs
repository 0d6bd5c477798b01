//! UE4.25+/UE5 `AnimSequence`: its cooked compressed data, read whole; the
//! keys of the `AnimCompress_*` codecs are decoded by [`super::anim_codec`]
//! (ACL and other codecs are named and not decoded).
//!
//! After the properties: the skeleton's GUID (`UAnimationAsset`),
//! `FStripDataFlags`, `bSerializeCompressedData`
//! (`i32` bool), then (`SerializeCompressedData`, UE 4.25+)
//! `CompressedRawDataSize`, the track → skeleton bone map
//! (`TArray<i32>`), the compressed curve names (`TArray<FName>`), the
//! byte stream (`i32` size, `i32` bool "in bulk data", the bytes or a bulk
//! data header), the bone codec's DDC handle and the curve codec's path
//! (`FString`s), the curve byte stream; the codec's own header follows.
//! For the `AnimCompress_*` codecs (`FUECompressedAnimData`) that header is
//! `CompressedNumberOfKeys` (`i32`), the key encoding format and the
//! translation, rotation and scale compression formats (a byte each), then
//! the sizes of the views laid end to end in the byte stream: the byte
//! stream's size, the track offsets' count (`i32`s, two per track), the
//! scale offsets' count and strip size. Facts: UE `AnimSequence.cpp`,
//! `AnimCompressionTypes.cpp`; CUE4Parse `UAnimSequence.cs`
//! (`SerializeCompressedData3`), `AnimCompressionTypes.cs`, `FSmartName.cs`.

use pakrat_asset::bulk;
use pakrat_asset::props::{Asset, Schemas, Value};
use pakrat_io::{Error, Reader, Result};

use super::buffers::bool32;
use super::prop;
use super::skeleton::{fname, native};
use super::static_mesh::BulkFetch;

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
    /// The compressed bone byte stream (the serialized views).
    pub stream: Vec<u8>,
    /// The `FUECompressedAnimData` header, for the `AnimCompress_*` codecs.
    pub ue: Option<UeHeader>,
    /// `AdditiveAnimType` (`AAT_None` when not additive).
    pub additive: String,
    /// `RefPoseType` of an additive animation.
    pub ref_pose_type: String,
    /// `RefPoseSeq`: the base sequence of an additive animation.
    pub ref_pose_seq: Option<String>,
    /// `RefFrameIndex`.
    pub ref_frame: i32,
    /// `Interpolation` (`Linear` or `Step`).
    pub interpolation: String,
}

/// The header of `FUECompressedAnimData` (the `AnimCompress_*` codecs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UeHeader {
    /// `CompressedNumberOfKeys`: keys of a full track (frames + 1).
    pub num_keys: usize,
    /// `KeyEncodingFormat`: 0 constant key lerp, 1 variable key lerp, 2
    /// per-track compression.
    pub key_format: u8,
    /// Translation, rotation and scale compression formats (`ACF_*`).
    pub formats: [u8; 3],
    /// `CompressedTrackOffsets`.
    pub track_offsets: Vec<i32>,
    /// `CompressedScaleOffsets.OffsetData`.
    pub scale_offsets: Vec<i32>,
    /// `CompressedScaleOffsets.StripSize`.
    pub scale_strip: i32,
    /// Where the key bytes start in [`AnimInfo::stream`] (after the two
    /// offset tables).
    pub keys_at: usize,
}

/// The names of `AnimationKeyFormat`.
pub const KEY_FORMATS: [&str; 3] = [
    "AKF_ConstantKeyLerp",
    "AKF_VariableKeyLerp",
    "AKF_PerTrackCompression",
];

fn float(v: Option<&Value>) -> Option<f32> {
    match v? {
        Value::Float(f) => Some(*f),
        Value::Double(d) => Some(*d as f32),
        _ => None,
    }
}

/// An enum property's value without its type prefix (`E::AAT_None` →
/// `AAT_None`), or `default`.
fn enum_name(v: Option<&Value>, default: &str) -> String {
    match v {
        Some(Value::Enum(e) | Value::Name(e)) => e.rsplit("::").next().unwrap_or(e).to_string(),
        _ => default.to_string(),
    }
}

/// Whether a bone codec stores `FUECompressedAnimData` (the engine's own
/// `AnimCompress_*` codecs; ACL's store their own data).
pub fn is_ue_codec(codec: &str) -> bool {
    codec.starts_with("AnimCompress_")
}

/// Read the compressed data of animation export `index`; `fetch` brings a
/// byte stream kept in bulk data.
pub fn read_anim_sequence(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    fetch: &BulkFetch<'_>,
) -> Result<AnimInfo> {
    let (p, mut r) = native(asset, index, schemas, "AnimSequence")?;
    let e = &asset.exports[index];
    let fail = |err: Error| Error::Other(format!("{}: {err}", e.path));
    let object = |name: &str| match prop(&p, name) {
        Some(Value::Object(o)) => o.clone(),
        _ => None,
    };
    let mut a = AnimInfo {
        name: e.name.clone(),
        path: e.path.clone(),
        skeleton: object("Skeleton"),
        length: float(prop(&p, "SequenceLength")).unwrap_or(0.0),
        rate_scale: float(prop(&p, "RateScale")).unwrap_or(1.0),
        additive: enum_name(prop(&p, "AdditiveAnimType"), "AAT_None"),
        ref_pose_type: enum_name(prop(&p, "RefPoseType"), "ABPT_RefPose"),
        ref_pose_seq: object("RefPoseSeq"),
        ref_frame: match prop(&p, "RefFrameIndex") {
            Some(Value::Int(i)) => i32::try_from(*i).unwrap_or(0),
            _ => 0,
        },
        interpolation: enum_name(prop(&p, "Interpolation"), "Linear"),
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
    compressed(asset, index, r, fetch, &mut a).map_err(fail)?;
    Ok(a)
}

/// `SerializeCompressedData` (UE 4.25+) and, for the `AnimCompress_*`
/// codecs, the `FUECompressedAnimData` header and views.
fn compressed(
    asset: &Asset<'_>,
    index: usize,
    r: &mut Reader<'_>,
    fetch: &BulkFetch<'_>,
    a: &mut AnimInfo,
) -> Result<()> {
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
    a.stream = if bool32(r, "bUseBulkDataForLoad")? {
        let b = bulk::read_ref(asset, index, r)?;
        let v = fetch(&b)?;
        if v.len() != bytes {
            return Err(Error::Other(format!(
                "the bulk byte stream holds {} bytes, not the {bytes} stated",
                v.len()
            )));
        }
        v
    } else {
        r.bytes(bytes as u64, "compressed byte stream")?.to_vec()
    };
    a.bone_codec = pakrat_codec::fstring::read_fstring(r, "bone codec")?;
    a.curve_codec = pakrat_codec::fstring::read_fstring(r, "curve codec")?;
    a.curve_bytes = r.i32_count("curve bytes", 1)?;
    r.skip(a.curve_bytes as u64, "curve byte stream")?;
    if is_ue_codec(&a.bone_codec) {
        a.ue = Some(read_ue_header(r, &a.stream)?);
    }
    Ok(())
}

impl UeHeader {
    /// The same header over another byte stream of the same shape (the
    /// offset tables read again from it): for mutation runs.
    pub fn with_stream(&self, stream: &[u8]) -> Result<UeHeader> {
        let (tracks, scales) = (self.track_offsets.len(), self.scale_offsets.len());
        if stream.len() < self.keys_at || self.keys_at != 4 * (tracks + scales) {
            return Err(Error::Other(format!(
                "a {}-byte stream cannot hold {tracks} track and {scales} scale offsets",
                stream.len()
            )));
        }
        Ok(UeHeader {
            track_offsets: ints(stream, 0, tracks),
            scale_offsets: ints(stream, 4 * tracks, scales),
            ..self.clone()
        })
    }
}

/// `n` little-endian `i32`s of `stream` from byte `from` (in bounds).
fn ints(stream: &[u8], from: usize, n: usize) -> Vec<i32> {
    stream[from..from + 4 * n]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Read the `FUECompressedAnimData` header (after the curve bytes) from
/// `r`; its views (the offset tables, then the key bytes) must fill
/// `stream`, the compressed byte stream, exactly.
pub fn read_ue_header(r: &mut Reader<'_>, stream: &[u8]) -> Result<UeHeader> {
    let num_keys = r.i32_count("CompressedNumberOfKeys", 0)?;
    let f = r.array::<4>("key and compression formats")?;
    if f[0] > 2 || f[1..].iter().any(|&x| x > 6) {
        return Err(r.invalid(format!(
            "key format {} / compression formats {:?} are outside the known ones",
            f[0],
            &f[1..]
        )));
    }
    let at = r.offset();
    let bytes = r.i32_count("byte stream size", 0)?;
    let tracks = r.i32_count("track offsets", 0)?;
    let scales = r.i32_count("scale offsets", 0)?;
    let scale_strip = r.i32("scale strip size")?;
    let keys_at = (tracks + scales)
        .checked_mul(4)
        .filter(|&o| o.checked_add(bytes) == Some(stream.len()))
        .ok_or_else(|| {
            Error::invalid(
                at,
                format!(
                    "{tracks} track offsets, {scales} scale offsets and {bytes} key bytes do not fill the {}-byte stream",
                    stream.len()
                ),
            )
        })?;
    Ok(UeHeader {
        num_keys,
        key_format: f[0],
        formats: [f[1], f[2], f[3]],
        track_offsets: ints(stream, 0, tracks),
        scale_offsets: ints(stream, 4 * tracks, scales),
        scale_strip,
        keys_at,
    })
}

/// Why `a` cannot be exported, if it cannot: a codec that is not decoded.
pub fn anim_problem(a: &AnimInfo) -> Option<String> {
    let what = || {
        format!(
            "{} bytes of compressed bone data, {} tracks",
            a.bone_bytes,
            a.track_to_bone.len()
        )
    };
    let Some(h) = &a.ue else {
        return Some(format!(
            "codec {} not decoded ({})",
            if a.bone_codec.is_empty() {
                "(unnamed)"
            } else {
                &a.bone_codec
            },
            what()
        ));
    };
    (h.key_format != 2).then(|| {
        format!(
            "codec {} with key format {} not decoded ({})",
            a.bone_codec,
            KEY_FORMATS[usize::from(h.key_format)],
            what()
        )
    })
}
