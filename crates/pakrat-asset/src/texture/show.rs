//! A [`Texture`] as the named fields `pakrat props` shows for an export's
//! native data: the platform data with its mips (bulk data as where and
//! how big, never the bytes) and the virtual-texture layout.

use super::{Texture, VirtualTexture};
use crate::bulk::BulkRef;
use crate::props::{PropType, Property, Value};

fn field(name: &str, ty: PropType, value: Value) -> Property {
    Property {
        name: name.to_string(),
        index: 0,
        ty,
        value,
    }
}

fn uint(name: &str, v: u64) -> Property {
    field(name, PropType::UInt64, Value::UInt(v))
}

fn text(name: &str, v: &str) -> Property {
    field(name, PropType::Str, Value::Str(v.to_string()))
}

fn strukt(name: &str, ty: &str, fields: Vec<Property>) -> Property {
    field(name, PropType::Struct(ty.into()), Value::Struct(fields))
}

fn array(name: &str, ty: &str, items: Vec<Value>) -> Property {
    field(
        name,
        PropType::Array(Box::new(PropType::Struct(ty.into()))),
        Value::Array(items),
    )
}

fn bulk(name: &str, b: &BulkRef) -> Property {
    strukt(
        name,
        "ByteBulkData",
        vec![
            uint("BulkDataFlags", u64::from(b.flags)),
            text("Location", &b.describe()),
            uint("OffsetInFile", b.offset),
            uint("SizeOnDisk", b.size_on_disk),
            uint("ElementCount", b.element_count),
        ],
    )
}

/// The native fields of a texture export.
pub fn to_properties(t: &Texture) -> Vec<Property> {
    let mips = t
        .mips
        .iter()
        .map(|m| {
            let mut f = vec![
                uint("SizeX", u64::from(m.width)),
                uint("SizeY", u64::from(m.height)),
                uint("SizeZ", u64::from(m.depth)),
            ];
            if let Some(b) = &m.data {
                f.push(bulk("BulkData", b));
            }
            Value::Struct(f)
        })
        .collect();
    let mut pd = vec![
        uint("SizeX", u64::from(t.width)),
        uint("SizeY", u64::from(t.height)),
        uint("PackedData", u64::from(t.packed_data)),
        uint("NumSlices", u64::from(t.slices)),
        field(
            "IsCubemap",
            PropType::Bool,
            Value::Bool(t.packed_data & (1 << 31) != 0),
        ),
        text("PixelFormat", &t.format),
    ];
    if let Some((ext, tail)) = t.opt_data {
        pd.push(strukt(
            "OptData",
            "OptTexturePlatformData",
            vec![
                uint("ExtData", u64::from(ext)),
                uint("NumMipsInTail", u64::from(tail)),
            ],
        ));
    }
    pd.push(field(
        "FirstMipToSerialize",
        PropType::Int,
        Value::Int(i64::from(t.first_mip)),
    ));
    pd.push(array("Mips", "Texture2DMipMap", mips));
    if let Some(vt) = &t.virtual_texture {
        pd.push(strukt("VTData", "VirtualTextureBuiltData", vt_fields(vt)));
    }
    let mut out = vec![strukt("PlatformData", "TexturePlatformData", pd)];
    if !t.other_formats.is_empty() {
        out.push(field(
            "OtherPixelFormats",
            PropType::Array(Box::new(PropType::Name)),
            Value::Array(t.other_formats.iter().cloned().map(Value::Name).collect()),
        ));
    }
    out
}

fn vt_fields(vt: &VirtualTexture) -> Vec<Property> {
    let chunks = vt
        .chunks
        .iter()
        .map(|c| {
            Value::Struct(vec![
                uint("SizeInBytes", u64::from(c.size_in_bytes)),
                uint("CodecPayloadSize", u64::from(c.codec_payload_size)),
                field(
                    "CodecType",
                    PropType::Array(Box::new(PropType::Byte(None))),
                    Value::Array(
                        c.codecs
                            .iter()
                            .map(|(k, _)| Value::UInt(u64::from(*k)))
                            .collect(),
                    ),
                ),
                bulk("BulkData", &c.data),
            ])
        })
        .collect();
    vec![
        uint("NumLayers", u64::from(vt.layers)),
        uint("NumMips", u64::from(vt.mips)),
        uint("Width", u64::from(vt.width)),
        uint("Height", u64::from(vt.height)),
        uint("WidthInBlocks", u64::from(vt.width_in_blocks)),
        uint("HeightInBlocks", u64::from(vt.height_in_blocks)),
        uint("TileSize", u64::from(vt.tile_size)),
        uint("TileBorderSize", u64::from(vt.tile_border_size)),
        field(
            "LayerTypes",
            PropType::Array(Box::new(PropType::Str)),
            Value::Array(vt.layer_formats.iter().cloned().map(Value::Str).collect()),
        ),
        uint("NumTileOffsetData", vt.tile_offset_data.len() as u64),
        array("Chunks", "VirtualTextureDataChunk", chunks),
    ]
}
