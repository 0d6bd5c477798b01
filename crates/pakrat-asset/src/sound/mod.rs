//! UE4/UE5 sounds: the cooked audio of a `SoundWave`.
//!
//! A cooked `USoundWave` writes, after its properties and object GUID flag
//! (facts: UE `SoundWave.cpp` `USoundWave::Serialize`; CUE4Parse
//! `USoundWave.cs`, `FStreamedAudioPlatformData.cs`):
//!
//! * UE5: a `u32` of flags (bit 0 cooked, then the loading behaviour); UE4:
//!   an `i32` bool `bCooked`;
//! * between file version 392 (`SOUND_COMPRESSION_TYPE_ADDED`) and
//!   `FFrameworkObjectVersion` 12 (`RemoveSoundWaveCompressionName`), an
//!   unused compression `FName`;
//! * UE 5.4+ cooked: the platform cue points (an array of
//!   `SoundWaveCuePoint` structs);
//! * either the **inline** form: a format container (count, then per format
//!   name a bulk payload) and the compressed-data GUID; or the **streamed**
//!   form: the GUID, then the platform data (chunk count, format name, and
//!   per chunk: flags, a bulk payload, `DataSize`, `AudioDataSize`, and a
//!   seek offset when flag 2 is set).
//!
//! Which form was written depends on project settings that the package
//! does not record, so both are tried and the one that ends exactly where
//! the export's bytes end is taken (UE 5.x always writes the streamed one).
//!
//! The audio is the chunks' first `AudioDataSize` bytes put end to end:
//! for `PCM` and `ADPCM` a RIFF/WAVE file ([`wav`]); for the other codecs
//! (Ogg Vorbis, Opus, Bink Audio, RAD Audio, …) their own stream, written
//! as it is.

pub mod wav;

use crate::bulk::{self, BulkRef};
use crate::props::{Asset, BulkFrom, Opened, PropType, Property, Value};
use pakrat_io::{Error, Guid, Reader, Result};

/// `FFrameworkObjectVersion`.
const FRAMEWORK: Guid = Guid {
    words: [0xCFFC_743F, 0x43B0_4480, 0x9391_14DF, 0x171D_2073],
};
const FRAMEWORK_REMOVE_COMPRESSION_NAME: i32 = 12;
const UE4_SOUND_COMPRESSION_TYPE_ADDED: i32 = 392;
/// `EUnrealEngineObjectUE5Version::PROPERTY_TAG_COMPLETE_TYPE_NAME`, the
/// file version of UE 5.4, from which cooked sound waves carry cue points.
const UE5_5_4: i32 = 1012;

/// A cooked SoundWave's audio: its format and where the bytes are.
#[derive(Clone, Debug, PartialEq)]
pub struct SoundWave {
    /// The flags word (UE5) or the `bCooked` bool (UE4).
    pub flags: u32,
    /// Streamed platform data (`true`) or the inline format container.
    pub streamed: bool,
    /// The compressed-data GUID.
    pub guid: Guid,
    /// Cue points (UE 5.4+), as decoded structs.
    pub cue_points: Vec<Value>,
    /// The audio format (`PCM`, `ADPCM`, `OGG`, `OPUS`, `BINKA`, `RADA`…):
    /// the streamed platform data's, or the first of the format container's.
    pub format: String,
    /// The payloads in order.
    pub chunks: Vec<SoundChunk>,
    /// Other formats of an inline format container (name, payload).
    pub other_formats: Vec<(String, BulkRef)>,
}

/// One payload of a SoundWave.
#[derive(Clone, Debug, PartialEq)]
pub struct SoundChunk {
    /// Chunk flags (1 cooked, 2 has seek offset, 4 inlined); 0 inline form.
    pub flags: u32,
    /// Where its bytes are.
    pub bulk: BulkRef,
    /// `DataSize` (streamed form; the payload's size otherwise).
    pub data_size: u64,
    /// `AudioDataSize`: the bytes of audio in the payload.
    pub audio_size: u64,
    /// Seek offset in audio frames, when stored.
    pub seek_offset: Option<u32>,
}

/// The classes read as sound waves.
pub fn is_sound_class(class: &str) -> bool {
    matches!(class, "SoundWave" | "SoundWaveProcedural")
}

fn fname(asset: &Asset<'_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let i = r.u32(what)?;
    let n = r.u32(what)?;
    asset.name(i, n).ok_or_else(|| {
        Error::invalid(
            at,
            format!(
                "{what}: name index {i} is outside the name map ({} names)",
                asset.names.len()
            ),
        )
    })
}

/// Read the native data of sound wave export `export` at `r` (after the
/// properties). `cue_point` decodes one `SoundWaveCuePoint` struct (tagged
/// or unversioned, as the package's properties are).
pub fn read(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    cue_point: &mut dyn FnMut(&mut Reader<'_>) -> Result<Value>,
) -> Result<SoundWave> {
    let flags = r.u32("sound wave flags")?;
    let v = &asset.versions;
    if v.ue4 >= UE4_SOUND_COMPRESSION_TYPE_ADDED
        && !v.custom_at_least(FRAMEWORK, FRAMEWORK_REMOVE_COMPRESSION_NAME)
    {
        fname(asset, r, "unused compression name")?;
    }
    let cooked = flags & 1 != 0;
    if !cooked {
        return Err(r.invalid(
            "the sound wave is not cooked (its audio is editor data); only cooked sound waves are read",
        ));
    }
    let mut cue_points = Vec::new();
    if v.ue5 >= UE5_5_4 {
        let n = r.i32_count("cue points", 1)?;
        for _ in 0..n {
            cue_points.push(cue_point(r)?);
        }
    }
    // Try the streamed form, then the inline one; keep the one that ends
    // exactly at the end of the export.
    let start = r.clone();
    let streamed = streamed_form(asset, export, r).and_then(|w| exact(r, w));
    let wave = match streamed {
        Ok(w) => w,
        Err(e1) => {
            *r = start;
            match inline_form(asset, export, r).and_then(|w| exact(r, w)) {
                Ok(w) => w,
                Err(e2) => {
                    return Err(Error::Other(format!(
                        "neither sound wave layout fits: as streamed data, {e1}; as a format container, {e2}"
                    )))
                }
            }
        }
    };
    Ok(SoundWave {
        flags,
        cue_points,
        ..wave
    })
}

fn exact(r: &Reader<'_>, w: SoundWave) -> Result<SoundWave> {
    if r.remaining() == 0 {
        Ok(w)
    } else {
        Err(r.invalid(format!(
            "{} bytes are left after the audio data",
            r.remaining()
        )))
    }
}

fn streamed_form(asset: &Asset<'_>, export: usize, r: &mut Reader<'_>) -> Result<SoundWave> {
    let guid = r.guid("compressed data GUID")?;
    // A chunk is at least flags, a bulk header (index) and two sizes.
    let n = r.i32_count("audio chunks", 16)?;
    let format = fname(asset, r, "audio format")?;
    let mut chunks = Vec::with_capacity(n);
    for _ in 0..n {
        let flags = r.u32("audio chunk flags")?;
        let bulk = bulk::read_ref(asset, export, r)?;
        let data_size = size(r, "audio chunk DataSize")?;
        let audio_size = size(r, "audio chunk AudioDataSize")?;
        let seek_offset = if flags & 2 != 0 {
            Some(r.u32("seek offset in audio frames")?)
        } else {
            None
        };
        if audio_size > bulk.size() {
            return Err(r.invalid(format!(
                "an audio chunk claims {audio_size} bytes of audio in a {}-byte payload",
                bulk.size()
            )));
        }
        chunks.push(SoundChunk {
            flags,
            bulk,
            data_size,
            audio_size,
            seek_offset,
        });
    }
    Ok(SoundWave {
        flags: 0,
        streamed: true,
        guid,
        cue_points: Vec::new(),
        format,
        chunks,
        other_formats: Vec::new(),
    })
}

fn size(r: &mut Reader<'_>, what: &str) -> Result<u64> {
    let at = r.offset();
    let v = r.i32(what)?;
    u64::try_from(v).map_err(|_| Error::invalid(at, format!("{what} is {v}, below zero")))
}

fn inline_form(asset: &Asset<'_>, export: usize, r: &mut Reader<'_>) -> Result<SoundWave> {
    // A format is at least its name and a bulk header (index).
    let n = r.i32_count("audio formats", 12)?;
    let mut formats = Vec::with_capacity(n);
    for _ in 0..n {
        let name = fname(asset, r, "audio format name")?;
        let bulk = bulk::read_ref(asset, export, r)?;
        formats.push((name, bulk));
    }
    let guid = r.guid("compressed data GUID")?;
    let mut formats = formats.into_iter();
    let (format, chunks) = match formats.next() {
        Some((name, bulk)) => {
            let size = bulk.size();
            let chunk = SoundChunk {
                flags: 0,
                bulk,
                data_size: size,
                audio_size: size,
                seek_offset: None,
            };
            (name, vec![chunk])
        }
        None => (String::new(), Vec::new()),
    };
    Ok(SoundWave {
        flags: 0,
        streamed: false,
        guid,
        cue_points: Vec::new(),
        // Format names of the container may carry a suffix (`OGG_…`).
        format: format.split('_').next().unwrap_or_default().to_string(),
        chunks,
        other_formats: formats.collect(),
    })
}

/// What [`SoundWave::audio`] gives: the bytes and how to name them.
#[derive(Clone, Debug)]
pub struct Audio {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// File extension without the dot (`wav`, `ogg`, `opus`, `binka`, `rada`…).
    pub extension: &'static str,
    /// The format as cooked (`PCM`, `ADPCM`, `OGG`…).
    pub format: String,
    /// Decoded to PCM (`true`), or the codec's own stream written as it is.
    pub decoded: bool,
    /// What was done, for a listing (`PCM WAV, 1 channel, 22050 Hz`).
    pub note: String,
}

/// Bound on the bytes of one sound's audio (the sum of its chunks) and of
/// its decoded PCM.
pub const MAX_AUDIO_BYTES: u64 = 1 << 31;

impl SoundWave {
    /// Bytes of audio in all chunks.
    pub fn audio_size(&self) -> u64 {
        self.chunks.iter().map(|c| c.audio_size).sum()
    }

    /// The sound's audio: chunks put end to end; `PCM`/`ADPCM` checked as
    /// WAVE and ADPCM decoded to 16-bit PCM (`decode`), other codecs as
    /// they are with their usual extension.
    pub fn audio(&self, pkg: &Opened, from: BulkFrom<'_>, decode: bool) -> Result<Audio> {
        let total = self.audio_size();
        if total > MAX_AUDIO_BYTES {
            return Err(Error::Other(format!(
                "the sound's chunks claim {total} bytes of audio, over the limit of {MAX_AUDIO_BYTES}"
            )));
        }
        let mut bytes = Vec::with_capacity(total as usize);
        for (i, c) in self.chunks.iter().enumerate() {
            let data = pkg.bulk(&c.bulk, from)?;
            let part = data.get(..c.audio_size as usize).ok_or_else(|| {
                Error::Other(format!(
                    "audio chunk {i}: {} bytes of audio in a {}-byte payload",
                    c.audio_size,
                    data.len()
                ))
            })?;
            bytes.extend_from_slice(part);
        }
        let format = self.format.to_ascii_uppercase();
        let raw = |extension: &'static str, what: &str| Audio {
            bytes: bytes.clone(),
            extension,
            format: self.format.clone(),
            decoded: false,
            note: format!("{what}, written as cooked (not decoded)"),
        };
        Ok(match format.as_str() {
            "PCM" | "ADPCM" => {
                let w = wav::parse(&bytes).map_err(|e| {
                    Error::Other(format!("{} audio is not a WAVE file: {e}", self.format))
                })?;
                let note = format!(
                    "{} WAV, {} channel{}, {} Hz",
                    w.format_name(),
                    w.channels,
                    if w.channels == 1 { "" } else { "s" },
                    w.sample_rate
                );
                if decode && w.format != wav::FORMAT_PCM {
                    let pcm = wav::to_pcm16(&bytes, &w, MAX_AUDIO_BYTES)?.into_owned();
                    Audio {
                        bytes: pcm,
                        extension: "wav",
                        format: self.format.clone(),
                        decoded: true,
                        note: format!("{note}, decoded to 16-bit PCM"),
                    }
                } else {
                    Audio {
                        bytes,
                        extension: "wav",
                        format: self.format.clone(),
                        decoded: w.format == wav::FORMAT_PCM,
                        note,
                    }
                }
            }
            f if f.starts_with("OGG") => raw("ogg", "Ogg Vorbis"),
            "OPUS" => raw("opus", "Opus"),
            "BINKA" => raw("binka", "Bink Audio"),
            "RADA" => raw("rada", "RAD Audio"),
            "AT9" => raw("at9", "ATRAC9"),
            _ => raw("bin", &format!("audio format {}", self.format)),
        })
    }
}

fn field(name: &str, ty: PropType, value: Value) -> Property {
    Property {
        name: name.to_string(),
        index: 0,
        ty,
        value,
    }
}

fn bulk_value(b: &BulkRef) -> Value {
    Value::Struct(vec![
        field(
            "BulkDataFlags",
            PropType::UInt32,
            Value::UInt(u64::from(b.flags)),
        ),
        field("Location", PropType::Str, Value::Str(b.describe())),
        field("SizeOnDisk", PropType::UInt64, Value::UInt(b.size_on_disk)),
        field(
            "ElementCount",
            PropType::UInt64,
            Value::UInt(b.element_count),
        ),
    ])
}

/// The native fields `pakrat props` shows for a sound wave.
pub fn to_properties(w: &SoundWave) -> Vec<Property> {
    let bulk_ty = || PropType::Struct("ByteBulkData".into());
    let mut out = vec![
        field(
            "SoundWaveFlags",
            PropType::UInt32,
            Value::UInt(u64::from(w.flags)),
        ),
        field(
            "PlatformCuePoints",
            PropType::Array(Box::new(PropType::Struct("SoundWaveCuePoint".into()))),
            Value::Array(w.cue_points.clone()),
        ),
        field(
            "CompressedDataGuid",
            PropType::Struct("Guid".into()),
            Value::Guid(w.guid),
        ),
    ];
    if w.streamed {
        let chunks = w
            .chunks
            .iter()
            .map(|c| {
                let mut f = vec![
                    field("Flags", PropType::UInt32, Value::UInt(u64::from(c.flags))),
                    field("BulkData", bulk_ty(), bulk_value(&c.bulk)),
                    field("DataSize", PropType::UInt64, Value::UInt(c.data_size)),
                    field("AudioDataSize", PropType::UInt64, Value::UInt(c.audio_size)),
                ];
                if let Some(s) = c.seek_offset {
                    f.push(field(
                        "SeekOffsetInAudioFrames",
                        PropType::UInt32,
                        Value::UInt(u64::from(s)),
                    ));
                }
                Value::Struct(f)
            })
            .collect();
        out.push(field(
            "RunningPlatformData",
            PropType::Struct("StreamedAudioPlatformData".into()),
            Value::Struct(vec![
                field("AudioFormat", PropType::Name, Value::Name(w.format.clone())),
                field(
                    "Chunks",
                    PropType::Array(Box::new(PropType::Struct("StreamedAudioChunk".into()))),
                    Value::Array(chunks),
                ),
            ]),
        ));
    } else {
        let mut formats: Vec<(Value, Value)> = Vec::new();
        if let Some(c) = w.chunks.first() {
            formats.push((Value::Name(w.format.clone()), bulk_value(&c.bulk)));
        }
        for (name, b) in &w.other_formats {
            formats.push((Value::Name(name.clone()), bulk_value(b)));
        }
        out.push(field(
            "CompressedFormatData",
            PropType::Map(Box::new(PropType::Name), Box::new(bulk_ty())),
            Value::Map(formats),
        ));
    }
    out
}

/// The sound wave export `index` of the opened package: its properties
/// decoded (through `schemas` when unversioned), then its native data.
pub fn read_export(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn crate::props::Schemas,
) -> Result<SoundWave> {
    crate::props::read_native_as(
        asset,
        index,
        schemas,
        "a sound wave",
        is_sound_class,
        |_, r, dec| read(asset, index, r, &mut |r| dec(r, "SoundWaveCuePoint")),
    )
}

#[cfg(test)]
mod tests;
