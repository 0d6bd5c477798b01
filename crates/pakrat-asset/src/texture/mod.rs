//! UE4/UE5 textures: the cooked platform data a texture export holds after
//! its properties (`UTexture::Serialize` and its subclasses), as a typed
//! model ([`Texture`]) whose mips point at their bulk data ([`BulkRef`]).
//!
//! Layout (cooked, checked on the UE 5.8/6.0 fixtures):
//!
//! * `FStripDataFlags` of `UTexture`, then of the subclass (2 bytes each);
//! * `bCooked` (`i32` bool); UE 5.3+ `Texture2D` and its subclasses (not
//!   cubes, arrays, volumes): `bSerializeMipData`;
//! * per cooked pixel format: its name (`FName`), the offset of the next
//!   one (`i64` from UE 4.20, `i32` before; relative from UE 5.0, absolute
//!   before: counted in the legacy file, which a UE4 zen package's exports
//!   keep as their offset), then `FTexturePlatformData`, until the name
//!   `None`;
//! * `FTexturePlatformData`: UE 5.0+ a 16-byte derived-data placeholder
//!   (UE 5.2+: its first byte a flag), `SizeX`, `SizeY`, `PackedData`
//!   (slice count, cube-map, optional-data and CPU-copy bits), the pixel
//!   format as an `FString`, optional data (`PackedData` bit 30, UE
//!   4.24+), a CPU copy (UE 5.4+), the first mip to serialize, the mips
//!   (`FTexture2DMipMap`: before UE 5.0 its own `bCooked`; bulk data with
//!   the legacy `FByteBulkData` header (64-bit sizes when
//!   `BULKDATA_Size64Bit`) or a bulk map index; `SizeX`, `SizeY`, and from
//!   UE 4.20 `SizeZ`), and (UE 4.23+) a virtual-texture flag and
//!   [`VirtualTexture`] data.
//!
//! UE4 (4.20–4.27) is checked on hand-built data per version gate (tests)
//! and on the one UE4 texture of the corpus (`T_Emissive`, UE 4.27 zen,
//! tests/texture_ue4.rs).
//!
//! Facts: UE `Texture.cpp`/`TextureDerivedData.cpp`; CUE4Parse
//! `UTexture*.cs`, `FTexturePlatformData.cs`, `FTexture2DMipMap.cs`,
//! `FByteBulkDataHeader.cs`, `FVirtualTextureBuiltData.cs`, `IoPackage.cs`
//! (UE4 zen export positions); UEViewer `UnTexture4.cpp`.

mod show;
#[cfg(test)]
mod tests;
mod vt;

pub use show::to_properties;
pub use vt::{TileOffsetData, TileSlice, VirtualTexture, VtChunk, VtMip, VtTile};

use pakrat_io::{Error, Reader, Result};
use serde::Serialize;

use crate::bulk::{self, BulkRef};
use crate::props::{Asset, Property, Value};

/// `EUnrealEngineObjectUE5Version::INITIAL_VERSION`.
const UE5_INITIAL: i32 = 1000;
/// `DATA_RESOURCES` (UE 5.2; 5.3 shares it).
const UE5_DATA_RESOURCES: i32 = 1009;
/// UE 4.20 (`FTexture2DMipMap::SizeZ`; 4.19 shares the file version).
const UE4_420: i32 = 516;

/// Texture classes whose native data is [`Texture`].
pub const CLASSES: &[&str] = &[
    "Texture2D",
    "TextureCube",
    "Texture2DArray",
    "TextureCubeArray",
    "VolumeTexture",
    "TextureLightProfile",
    "VirtualTexture2D",
    "LightMapVirtualTexture2D",
    "ShadowMapTexture2D",
    "LightMapTexture2D",
    "Texture2DDynamic",
    "CurveLinearColorAtlas",
];

/// Whether `class` (short name) is a texture class pakrat reads.
pub fn is_texture_class(class: &str) -> bool {
    CLASSES.contains(&class)
}

/// What kind of image a texture holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TextureKind {
    /// One 2D image (Texture2D, light profiles, virtual textures).
    Texture2D,
    /// Six faces (+X, -X, +Y, -Y, +Z, -Z).
    Cube,
    /// Slices of the same size.
    Array,
    /// Cubes: six faces per element.
    CubeArray,
    /// A 3D image: `depth` slices per mip, shrinking with the mips.
    Volume,
}

/// One mip of a texture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mip {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `SizeZ`: depth of a volume mip, slices of an array (1 otherwise).
    pub depth: u32,
    /// Its pixels (all faces/slices, one after the other), `None` when the
    /// cook left the mip data out (`bSerializeMipData` false).
    pub data: Option<BulkRef>,
}

/// A cooked texture.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Texture {
    /// Class short name (`Texture2D`, `TextureCube` …).
    pub class: String,
    /// What the pixels form.
    pub kind: TextureKind,
    /// Pixel format as Unreal names it (`PF_DXT1`).
    pub format: String,
    /// Width of the top mip (`SizeX`).
    pub width: u32,
    /// Height of the top mip (`SizeY`).
    pub height: u32,
    /// Faces/slices per mip (`PackedData` slice count: 6 for a cube, 6·n
    /// for a cube array, n for an array, 1 otherwise).
    pub slices: u32,
    /// `PackedData` (raw, for display).
    pub packed_data: u32,
    /// Optional data (`ExtData`, `NumMipsInTail`), when present.
    pub opt_data: Option<(u32, u32)>,
    /// `FirstMipToSerialize`.
    pub first_mip: i32,
    /// The mips, largest first.
    pub mips: Vec<Mip>,
    /// Virtual-texture data (tiles in chunks), for virtual textures.
    pub virtual_texture: Option<VirtualTexture>,
    /// Other cooked pixel formats, skipped (only the first is read, as the
    /// engine's loader does).
    pub other_formats: Vec<String>,
    /// `SRGB` property (true when not set).
    pub srgb: bool,
    /// `CompressionSettings` property without its enum prefix
    /// (`TC_Normalmap` …), when set.
    pub compression: Option<String>,
}

impl Texture {
    /// A normal map (`CompressionSettings` `TC_Normalmap`).
    pub fn is_normal_map(&self) -> bool {
        self.compression.as_deref() == Some("TC_Normalmap")
    }

    /// Mip `m`'s faces/slices: `slices`, or for a volume the mip's depth.
    pub fn surfaces_of(&self, m: &Mip) -> u32 {
        match self.kind {
            TextureKind::Volume => m.depth.max(1),
            _ => self.slices.max(1),
        }
    }
}

/// A texture's native data could not be read.
fn bad(r: &Reader<'_>, what: impl Into<String>) -> Error {
    r.invalid(what)
}

/// Read the native data of texture export `export` of `asset`, at `r`
/// (after the properties), with the export's properties for the settings
/// kept with the model.
pub fn read(
    asset: &Asset<'_>,
    export: usize,
    class: &str,
    props: &[Property],
    r: &mut Reader<'_>,
) -> Result<Texture> {
    let strip = r.u16("texture strip flags")?;
    if strip & 1 == 0 {
        return Err(bad(
            r,
            "the texture keeps its editor data (an uncooked package); only cooked textures are read",
        ));
    }
    r.u16("texture class strip flags")?;
    let cooked = r.u32("bCooked")?;
    if cooked == 0 {
        return Err(bad(r, "the texture is not cooked (bCooked is false)"));
    }
    let mut with_mips = true;
    let flat = !matches!(
        class,
        "TextureCube" | "Texture2DArray" | "TextureCubeArray" | "VolumeTexture"
    );
    if flat && asset.versions.ue5 >= UE5_DATA_RESOURCES && serialize_mip_flag_follows(asset, r) {
        with_mips = r.u32("bSerializeMipData")? != 0;
    }
    let mut tex: Option<Texture> = None;
    let mut others = Vec::new();
    loop {
        let name = fname(asset, r, "pixel format name")?;
        if name == "None" {
            break;
        }
        let at = r.offset();
        // 64-bit from UE 4.20 (32-bit before); absolute before UE 5.0.
        let skip = if asset.versions.ue5 >= UE5_INITIAL || asset.versions.ue4 >= UE4_420 {
            r.i64("offset of the next pixel format")?
        } else {
            i64::from(r.i32("offset of the next pixel format")?)
        };
        let end = if asset.versions.ue5 >= UE5_INITIAL {
            (at as i64).checked_add(skip)
        } else {
            Some(skip)
        }
        .and_then(|e| u64::try_from(e).ok())
        .filter(|&e| e >= r.offset() && e - r.offset() <= r.remaining() as u64)
        .ok_or_else(|| {
            Error::invalid(
                at,
                format!("{name}: its data would end at {skip}, outside the export"),
            )
        })?;
        if tex.is_some() {
            others.push(name);
            r.skip(end - r.offset(), "other pixel format")?;
            continue;
        }
        let t = platform_data(asset, export, r, end, with_mips)?;
        if r.offset() != end {
            return Err(Error::invalid(
                r.offset(),
                format!(
                    "{name}: platform data ends at {}, the package says at {end}",
                    r.offset()
                ),
            ));
        }
        tex = Some(t);
    }
    let mut t = tex.ok_or_else(|| bad(r, "the texture has no cooked pixel format"))?;
    t.class = class.to_string();
    t.kind = kind_of(class, t.packed_data);
    t.other_formats = others;
    t.srgb = !matches!(prop(props, "SRGB"), Some(Value::Bool(false)));
    t.compression = match prop(props, "CompressionSettings") {
        Some(Value::Enum(s) | Value::Name(s)) => {
            Some(s.rsplit("::").next().unwrap_or(s).to_string())
        }
        _ => None,
    };
    Ok(t)
}

/// A property's value by name.
fn prop<'p>(props: &'p [Property], name: &str) -> Option<&'p Value> {
    props.iter().find(|p| p.name == name).map(|p| &p.value)
}

fn kind_of(class: &str, packed: u32) -> TextureKind {
    match class {
        "TextureCube" => TextureKind::Cube,
        "TextureCubeArray" => TextureKind::CubeArray,
        "Texture2DArray" => TextureKind::Array,
        "VolumeTexture" => TextureKind::Volume,
        _ if packed & (1 << 31) != 0 => TextureKind::Cube,
        _ => TextureKind::Texture2D,
    }
}

/// UE 5.3 added `bSerializeMipData` before the formats. 5.2 shares its
/// file version: there it is taken to be present when the next word is a
/// bool, the name after it a pixel format, and the word itself not one.
fn serialize_mip_flag_follows(asset: &Asset<'_>, r: &Reader<'_>) -> bool {
    if asset.versions.ue5 > UE5_DATA_RESOURCES {
        return true;
    }
    let rest = r.rest();
    let word = |at: usize| -> Option<u32> {
        rest.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let is_format = |at: usize| -> bool {
        match (word(at), word(at + 4)) {
            (Some(i), Some(0)) => asset
                .name(i, 0)
                .is_some_and(|s| s.starts_with("PF_") || s == "None"),
            _ => false,
        }
    };
    matches!(word(0), Some(0 | 1)) && is_format(4) && !is_format(0)
}

/// An `FName` in export data, resolved.
pub(crate) fn fname(asset: &Asset<'_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
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

/// `FTexturePlatformData` up to `end`.
fn platform_data(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    end: u64,
    with_mips: bool,
) -> Result<Texture> {
    let ue5 = asset.versions.ue5;
    if ue5 >= UE5_INITIAL {
        let at = r.offset();
        let placeholder = r.bytes(16, "derived data placeholder")?;
        if ue5 >= UE5_DATA_RESOURCES && placeholder[0] != 0 {
            return Err(Error::invalid(
                at,
                "the platform data refers to derived data (bUsingDerivedData), which a cooked package does not",
            ));
        }
    }
    let width = r.u32("SizeX")?;
    let height = r.u32("SizeY")?;
    let packed = r.u32("PackedData")?;
    let format = pakrat_codec::fstring::read_fstring(r, "pixel format")?;
    let opt_data = if packed & (1 << 30) != 0 {
        Some((r.u32("ExtData")?, r.u32("NumMipsInTail")?))
    } else {
        None
    };
    if packed & (1 << 29) != 0 {
        // FSharedImage: sizes, format, gamma, then the raw bytes.
        r.skip(12 + 1 + 1, "CPU copy header")?;
        let n = r.i64("CPU copy size")?;
        let n = u64::try_from(n).map_err(|_| bad(r, format!("CPU copy size {n} is negative")))?;
        r.skip(n, "CPU copy")?;
    }
    let first_mip = r.i32("FirstMipToSerialize")?;
    let per_mip = if with_mips { 16 } else { 12 };
    let n = r.i32_count("mips", per_mip)?;
    let mut mips = Vec::with_capacity(n);
    for _ in 0..n {
        mips.push(mip(asset, export, r, with_mips)?);
    }
    let mut virtual_texture = None;
    // UE 4.23+: the virtual-texture flag (4.21–4.23 share a file version:
    // it is there when bytes are left before the next format).
    if r.offset() < end && r.u32("bIsVirtual")? != 0 {
        virtual_texture = Some(vt::read(asset, export, r)?);
    }
    let (width, height) = match (mips.first(), &virtual_texture) {
        (Some(m), _) => (m.width, m.height),
        (None, Some(v)) => (v.width, v.height),
        (None, None) => (width, height),
    };
    Ok(Texture {
        class: String::new(),
        kind: TextureKind::Texture2D,
        format,
        width,
        height,
        slices: packed & ((1 << 29) - 1),
        packed_data: packed,
        opt_data,
        first_mip,
        mips,
        virtual_texture,
        other_formats: Vec::new(),
        srgb: true,
        compression: None,
    })
}

/// `FTexture2DMipMap` (cooked).
fn mip(asset: &Asset<'_>, export: usize, r: &mut Reader<'_>, with_data: bool) -> Result<Mip> {
    let v = &asset.versions;
    let cooked = if v.ue5 < UE5_INITIAL {
        r.u32("mip cooked flag")? != 0
    } else {
        true
    };
    let data = if with_data {
        Some(bulk::read_ref(asset, export, r)?)
    } else {
        None
    };
    let width = r.u32("mip SizeX")?;
    let height = r.u32("mip SizeY")?;
    let depth = if v.ue5 >= UE5_INITIAL || v.ue4 >= UE4_420 {
        r.u32("mip SizeZ")?
    } else {
        1
    };
    if !cooked {
        return Err(bad(r, "an uncooked mip (derived data) is not read"));
    }
    Ok(Mip {
        width,
        height,
        depth,
        data,
    })
}

/// The texture export `index` of `asset`: its properties decoded (through
/// `schemas` when unversioned), then its native data read as a [`Texture`].
pub fn read_export(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn crate::props::Schemas,
) -> Result<Texture> {
    crate::props::read_native_as(
        asset,
        index,
        schemas,
        "a texture",
        is_texture_class,
        |props, r, _| {
            let class = asset.exports[index].class_name();
            read(asset, index, class, props, r)
        },
    )
}
