//! UE2 material objects (issue 28 item 4): `Shader`, `Combiner`,
//! `FinalBlend`, the texture modifiers (`TexPanner`, `TexOscillator`, ...),
//! `ConstantColor` and the rest of the `Material` subclasses of UT2004's
//! `Engine.u` that are not textures.
//!
//! They hold no data of their own beyond their properties: each points at
//! other materials and textures (`Shader.Diffuse`, `Combiner.Material1`,
//! `Modifier.Material`, ...). pakrat exports one as a small JSON file: its
//! properties in the `props --json` shape, the textures and materials it
//! refers to, and the texture that shows as its base colour, found by
//! following that chain (what a glTF material of a mesh takes).

use std::collections::HashSet;

use serde_json::{json, Value as Json};

use crate::export::{kind_of_class, Kind};
use crate::json::PropsJson;
use crate::props::{read_object, StructValue, Value};
use crate::{ObjRef, Package, Target};
use pakrat_io::Result;

/// The `Material` subclasses of UE2's Engine that are not textures (the
/// class tree of the corpus's `ut2004_Engine.u`).
pub const MATERIAL_CLASSES: &[&str] = &[
    "Shader",
    "Combiner",
    "FinalBlend",
    "Modifier",
    "ColorModifier",
    "OpacityModifier",
    "TexModifier",
    "TexPanner",
    "TexPannerTriggered",
    "VariableTexPanner",
    "TexOscillator",
    "TexOscillatorTriggered",
    "TexRotator",
    "TexScaler",
    "TexCoordSource",
    "TexEnvMap",
    "TexMatrix",
    "ConstantColor",
    "ConstantMaterial",
    "FadeColor",
    "VertexColor",
    "MaterialSequence",
    "MaterialSwitch",
    "ParticleMaterial",
    "ProjectorMaterial",
    "TerrainMaterial",
    "ShadowBitmapMaterial",
];

/// Whether `class` is one of [`MATERIAL_CLASSES`].
pub fn is_material_class(class: &str) -> bool {
    MATERIAL_CLASSES
        .iter()
        .any(|c| c.eq_ignore_ascii_case(class))
}

/// How deep [`base_texture`] follows material references (a loop of
/// materials pointing at each other ends at the first repeat anyway).
const MAX_DEPTH: usize = 16;

/// The properties that carry a material's colour, in the order they are
/// tried (UT2004 `Engine.u`: `Shader.Diffuse`, `Combiner.Material1`,
/// `Modifier.Material`, `MaterialSequence.SequenceItems[].Material`,
/// `MaterialSwitch.Materials`, `TerrainMaterial.Layers[].Texture`).
fn colour_properties(class: &str) -> &'static [&'static str] {
    match class.to_ascii_lowercase().as_str() {
        "shader" => &["Diffuse", "SelfIllumination", "Specular"],
        "combiner" => &["Material1", "Material2"],
        "materialsequence" => &["SequenceItems"],
        "materialswitch" => &["Materials"],
        "terrainmaterial" => &["Layers"],
        "projectormaterial" => &["Projected", "BaseMaterial"],
        _ => &["Material"],
    }
}

/// Every object reference inside a value, in order (array elements and
/// struct members included).
fn refs_in(v: &Value<'_>, out: &mut Vec<ObjRef>) {
    match v {
        Value::Object(r) | Value::Class(r) if !r.is_none() => out.push(*r),
        Value::TypedArray { elems, .. } => elems.iter().for_each(|e| refs_in(e, out)),
        Value::Struct(s) => {
            if let StructValue::Tagged(props) = s.as_ref() {
                props.iter().for_each(|p| refs_in(&p.value, out));
            }
        }
        _ => {}
    }
}

/// A texture a material shows, in this package or imported from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureRef {
    /// `exports[i]`.
    Export(usize),
    /// `imports[i]`, whose class is a texture class (its pixels are in the
    /// other package).
    Import(usize),
}

/// The texture (an export of `pkg`) that material `r` shows as its base
/// colour: `r` itself when it is a texture, else the first texture reached
/// through its colour properties. `None` when the chain leads out of the
/// package (an import), ends in a colour (`ConstantColor`), or does not
/// decode.
pub fn base_texture(pkg: &Package<'_>, r: ObjRef) -> Option<usize> {
    match base_texture_ref(pkg, r) {
        Some(TextureRef::Export(i)) => Some(i),
        _ => None,
    }
}

/// [`base_texture`], also naming a texture imported from another package.
pub fn base_texture_ref(pkg: &Package<'_>, r: ObjRef) -> Option<TextureRef> {
    base(pkg, r, 0, &mut HashSet::new())
}

fn base(
    pkg: &Package<'_>,
    r: ObjRef,
    depth: usize,
    seen: &mut HashSet<usize>,
) -> Option<TextureRef> {
    let i = match pkg.check_ref(r) {
        Ok(Target::Export(i)) => i,
        Ok(Target::Import(k)) => {
            let class = pkg.imports.get(k).map(|m| pkg.name(m.class_name))?;
            return (kind_of_class(class) == Some(Kind::Texture)).then_some(TextureRef::Import(k));
        }
        _ => return None,
    };
    if depth > MAX_DEPTH || !seen.insert(i) {
        return None;
    }
    let class = pkg.export_class_name(i).ok()?;
    if kind_of_class(class) == Some(Kind::Texture) {
        return Some(TextureRef::Export(i));
    }
    if !is_material_class(class) {
        return None;
    }
    let data = read_object(pkg, i).ok()?;
    for name in colour_properties(class) {
        let mut refs = Vec::new();
        for p in data
            .properties
            .iter()
            .filter(|p| pkg.name(p.name).eq_ignore_ascii_case(name))
        {
            refs_in(&p.value, &mut refs);
        }
        if let Some(t) = refs.into_iter().find_map(|x| base(pkg, x, depth + 1, seen)) {
            return Some(t);
        }
    }
    None
}

/// The JSON description of material `exports[i]`: its entry in the
/// `props --json` shape (`name`, `path`, `class`, `outer`, `properties`),
/// plus `references` (each object a property points at, with the
/// property's name and the object's class), `base_color` (the full path of
/// the texture [`base_texture_ref`] finds, or `null`) and
/// `base_color_in_package` (whether that texture is in this package).
pub fn material_json(pkg: &Package<'_>, package: &str, i: usize) -> Result<Json> {
    let data = read_object(pkg, i)?;
    let pj = PropsJson::new(pkg, package);
    let mut o = pj.export(i, Ok(&data));
    let mut references = Vec::new();
    for p in &data.properties {
        let mut refs = Vec::new();
        refs_in(&p.value, &mut refs);
        for r in refs {
            let class = match pkg.check_ref(r) {
                Ok(Target::Export(k)) => pj.class_path(k),
                Ok(Target::Import(k)) => pkg
                    .imports
                    .get(k)
                    .map(|m| format!("{}.{}", pkg.name(m.class_package), pkg.name(m.class_name)))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            references.push(json!({
                "property": pkg.name(p.name),
                "index": p.array_index,
                "object": pj.path(r),
                "class": class,
                "in_package": matches!(pkg.check_ref(r), Ok(Target::Export(_))),
            }));
        }
    }
    o["references"] = Json::Array(references);
    let base = base_texture_ref(pkg, ObjRef::export(i));
    o["base_color"] = base
        .and_then(|t| match t {
            TextureRef::Export(k) => pj.path(ObjRef::export(k)),
            TextureRef::Import(k) => pj.path(ObjRef::import(k)),
        })
        .map_or(Json::Null, Json::String);
    o["base_color_in_package"] = Json::Bool(matches!(base, Some(TextureRef::Export(_))));
    if let Some(m) = o.as_object_mut() {
        m.remove("native");
    }
    Ok(o)
}
