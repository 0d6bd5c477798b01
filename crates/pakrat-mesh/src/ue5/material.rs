//! UE4/UE5 materials: which textures a glTF material shows.
//!
//! A mesh's material slot names a `MaterialInterface`: a
//! `MaterialInstanceConstant` (its `TextureParameterValues`, each a
//! `ParameterInfo.Name` and a `ParameterValue` texture, then its `Parent`)
//! or a `Material` (cooked, it keeps no expression graph, only the textures
//! it references: `CachedExpressionData.ReferencedTextures`,
//! `ReferencedTextures`, `ReferencedDefaultTextures`, without parameter
//! names; where the cook kept the editor's expressions, the
//! `MaterialExpressionTexture*` objects they list, see [`expressions`]).
//! Before UE 4.19 an instance's parameter is named by `ParameterName`.
//! [`material_info`] reads one object's part; the caller follows
//! the chain (child first, so an instance's value overrides its parent's
//! for the same parameter name) and gathers [`Candidate`]s with the
//! texture's own `CompressionSettings` and `SRGB`; [`choose`] picks.
//!
//! The rule (facts from CUE4Parse's `CMaterialParams2`, which matches
//! parameter names against long lists and patterns, and from Unreal's
//! texture settings; the lists below are pakrat's own, shorter):
//!
//! 1. **Normal map**: a parameter named like a normal map (`Normal`,
//!    `NormalMap`, `Nrm`, names ending `_N`/`_NM`) whose texture is not
//!    named like a colour, the ones with `TC_Normalmap` first; else any
//!    candidate texture compressed as `TC_Normalmap`.
//! 2. **Base colour**: the best-ranked parameter named like a base colour
//!    (exactly `BaseColor`, `Diffuse`, `Albedo`, `Color`, … first; then a
//!    name containing one of them) whose texture is not `TC_Normalmap`;
//!    else a texture whose own object name says so (`T_Quinn_01_D`,
//!    `…_BaseColor`); else the first remaining candidate that is neither a
//!    normal map nor named like a mask (roughness, metallic, specular,
//!    emissive, opacity, ambient occlusion, height, `ORM` …), sRGB textures
//!    (colour data) before linear ones.

use pakrat_asset::props::{Property, Value};

use super::prop;

/// A texture a material (or one of its parents) uses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextureRef {
    /// The parameter's name (`TextureParameterValues`), or None for a
    /// texture a `Material` references without a name.
    pub parameter: Option<String>,
    /// The texture's full object path.
    pub texture: String,
}

/// What one material object says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialInfo {
    /// Its `Parent` (instances).
    pub parent: Option<String>,
    /// Its textures: named parameters first, then referenced ones.
    pub textures: Vec<TextureRef>,
}

/// An object path that names a real object (not null, not an unresolved
/// import's note).
fn object_path(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Object(Some(p)) if p.starts_with('/') => Some(p.clone()),
        _ => None,
    }
}

fn name_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Name(n) if n != "None" => Some(n.clone()),
        _ => None,
    }
}

/// The material expressions a `Material` lists (`Expressions`, or
/// `ExpressionCollection.Expressions`; editor data that most cooks strip):
/// their object paths, for [`expression_texture`].
pub fn expressions(props: &[Property]) -> Vec<String> {
    let list = match prop(props, "ExpressionCollection") {
        Some(Value::Struct(f)) => prop(f, "Expressions"),
        _ => prop(props, "Expressions"),
    };
    match list {
        Some(Value::Array(items)) => items.iter().filter_map(|v| object_path(Some(v))).collect(),
        _ => Vec::new(),
    }
}

/// The texture a material expression samples (`MaterialExpressionTexture*`
/// of class `class`: its `Texture`, named by its `ParameterName` when it is
/// a parameter).
pub fn expression_texture(class: &str, props: &[Property]) -> Option<TextureRef> {
    if !class.starts_with("MaterialExpressionTexture") {
        return None;
    }
    Some(TextureRef {
        parameter: name_of(prop(props, "ParameterName")),
        texture: object_path(prop(props, "Texture"))?,
    })
}

/// The parent and textures of a material object's properties.
pub fn material_info(props: &[Property]) -> MaterialInfo {
    let mut out = MaterialInfo {
        parent: object_path(prop(props, "Parent")),
        textures: Vec::new(),
    };
    if let Some(Value::Array(items)) = prop(props, "TextureParameterValues") {
        for v in items {
            let Value::Struct(f) = v else { continue };
            // UE 4.19+ `ParameterInfo.Name`; before, `ParameterName`.
            let name = match prop(f, "ParameterInfo") {
                Some(Value::Struct(info)) => name_of(prop(info, "Name")),
                _ => name_of(prop(f, "ParameterName")),
            };
            if let Some(texture) = object_path(prop(f, "ParameterValue")) {
                out.textures.push(TextureRef {
                    parameter: name,
                    texture,
                });
            }
        }
    }
    let cached = match prop(props, "CachedExpressionData") {
        Some(Value::Struct(f)) => prop(f, "ReferencedTextures"),
        _ => None,
    };
    let lists = [
        cached,
        prop(props, "ReferencedTextures"),
        prop(props, "ReferencedDefaultTextures"),
    ];
    for v in lists.into_iter().flatten() {
        let Value::Array(items) = v else { continue };
        for item in items {
            if let Some(texture) = object_path(Some(item)) {
                out.textures.push(TextureRef {
                    parameter: None,
                    texture,
                });
            }
        }
    }
    out
}

/// One texture to choose from, with what its own object says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Candidate {
    /// Where it came from.
    pub r: TextureRef,
    /// `CompressionSettings` is `TC_Normalmap`.
    pub normal_map: bool,
    /// `SRGB` (colour data); None when the texture was not read.
    pub srgb: Option<bool>,
}

/// The textures [`choose`] picked: indices into the candidates, and the
/// rule that picked each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choice {
    /// The base colour.
    pub base_color: Option<(usize, &'static str)>,
    /// The normal map.
    pub normal: Option<(usize, &'static str)>,
}

/// Lower case without separators: `Base Color_Tex` → `basecolortex`.
fn key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The short object name of a path (`/Game/T/T_A.T_A` → `T_A`).
fn short_name(path: &str) -> &str {
    let tail = path.rsplit(['.', ':']).next().unwrap_or(path);
    tail.rsplit('/').next().unwrap_or(tail)
}

fn has_suffix(name: &str, suffixes: &[&str]) -> bool {
    let l = name.to_ascii_lowercase();
    suffixes.iter().any(|s| l.ends_with(s))
}

/// Whether a name says "normal map".
pub fn is_normal_name(name: &str) -> bool {
    let k = key(name);
    (k.contains("normal") || k.contains("nrm"))
        || has_suffix(name, &["_n", "_nm", "_nrm"])
        || name.to_ascii_lowercase().starts_with("no_")
}

const BASE_EXACT: &[&str] = &[
    "basecolor",
    "basecolour",
    "basecolortexture",
    "basecolormap",
    "basecolortex",
    "diffuse",
    "diffusetexture",
    "diffusemap",
    "albedo",
    "albedotexture",
    "albedomap",
    "color",
    "colour",
    "colortexture",
    "colormap",
    "basetexture",
    "basemap",
    "maintex",
];

const BASE_WORDS: &[&str] = &["basecolor", "basecolour", "diffuse", "albedo"];

const MASK_WORDS: &[&str] = &[
    "rough",
    "metal",
    "spec",
    "emiss",
    "opacity",
    "mask",
    "occlusion",
    "height",
    "displace",
    "orm",
    "rma",
    "mra",
    "alpha",
    "detail",
    "noise",
];

/// How strongly a name says "base colour" (lower is stronger): exactly
/// one of the usual names (ranked in the order `BaseColor`, `Diffuse`,
/// `Albedo`, `Color`, …: below 100), contains one (100), contains
/// "color"/"colour" or ends in a colour suffix (`_D`, `_BC`, `_C`, `_Diff`,
/// `_Alb`: 200); None = not at all.
pub fn base_color_rank(name: &str) -> Option<u16> {
    if is_normal_name(name) {
        return None;
    }
    let k = key(name);
    if let Some(i) = BASE_EXACT.iter().position(|w| *w == k) {
        Some(i as u16)
    } else if BASE_WORDS.iter().any(|w| k.contains(w)) {
        Some(100)
    } else if k.contains("color")
        || k.contains("colour")
        || has_suffix(name, &["_d", "_bc", "_c", "_diff", "_alb", "_dif"])
    {
        Some(200)
    } else {
        None
    }
}

/// Whether a name says "a mask or another non-colour map".
fn is_mask_name(name: &str) -> bool {
    let k = key(name);
    MASK_WORDS.iter().any(|w| k.contains(w)) || has_suffix(name, &["_m", "_r", "_s", "_e", "_h"])
}

/// Pick the base colour and the normal map among `c` (see the module
/// documentation for the rule).
pub fn choose(c: &[Candidate]) -> Choice {
    let param = |x: &Candidate| x.r.parameter.clone().unwrap_or_default();
    let tex = |x: &Candidate| short_name(&x.r.texture).to_string();
    let mut normal = None;
    let named_normal: Vec<usize> = (0..c.len())
        .filter(|&i| is_normal_name(&param(&c[i])) && base_color_rank(&tex(&c[i])).is_none())
        .collect();
    if let Some(&i) = named_normal
        .iter()
        .find(|&&i| c[i].normal_map)
        .or(named_normal.first())
    {
        normal = Some((i, "parameter name"));
    } else if let Some(i) = c.iter().position(|x| x.normal_map) {
        normal = Some((i, "TC_Normalmap"));
    }
    let usable = |i: usize| Some(i) != normal.map(|n| n.0) && !c[i].normal_map;
    let by_param = (0..c.len())
        .filter(|&i| usable(i))
        .filter_map(|i| base_color_rank(&param(&c[i])).map(|r| (r, i)))
        .min();
    let base_color = if let Some((_, i)) = by_param {
        Some((i, "parameter name"))
    } else if let Some((_, i)) = (0..c.len())
        .filter(|&i| usable(i) && c[i].r.parameter.as_deref().is_none_or(|p| !is_mask_name(p)))
        .filter_map(|i| base_color_rank(&tex(&c[i])).map(|r| (r, i)))
        .min()
    {
        Some((i, "texture name"))
    } else {
        (0..c.len())
            .filter(|&i| {
                usable(i)
                    && !is_mask_name(&param(&c[i]))
                    && !is_mask_name(&tex(&c[i]))
                    && !is_normal_name(&tex(&c[i]))
            })
            .min_by_key(|&i| (c[i].srgb == Some(false), i))
            .map(|i| (i, "first colour texture"))
    };
    Choice { base_color, normal }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(p: Option<&str>, t: &str, normal_map: bool, srgb: bool) -> Candidate {
        Candidate {
            r: TextureRef {
                parameter: p.map(str::to_string),
                texture: format!("/Game/T/{t}.{t}"),
            },
            normal_map,
            srgb: Some(srgb),
        }
    }

    #[test]
    fn names_rank_base_colour_and_normal() {
        assert_eq!(base_color_rank("BaseColor"), Some(0));
        assert_eq!(base_color_rank("Base Color"), Some(0));
        assert_eq!(base_color_rank("Diffuse_Tex"), Some(100));
        assert_eq!(base_color_rank("PrimaryColor"), Some(200));
        assert_eq!(base_color_rank("T_Quinn_01_D"), Some(200));
        assert_eq!(base_color_rank("NormalColor"), None);
        assert_eq!(base_color_rank("Roughness"), None);
        assert!(is_normal_name("Normal Map"));
        assert!(is_normal_name("T_Rock_N"));
        assert!(!is_normal_name("Diffuse"));
    }

    #[test]
    fn parameter_names_win_then_texture_settings() {
        let c = [
            cand(Some("Roughness"), "T_R", false, false),
            cand(Some("Normal"), "T_Nrm", true, false),
            cand(Some("Diffuse"), "T_Diff", false, true),
            cand(Some("BaseColor"), "T_BC", false, true),
        ];
        let ch = choose(&c);
        assert_eq!(ch.base_color, Some((3, "parameter name")));
        assert_eq!(ch.normal, Some((1, "parameter name")));
        // No names: the TC_Normalmap texture is the normal map, the sRGB
        // one the base colour, the mask-named one neither.
        let c = [
            cand(Some("FixtureMask"), "T_A", false, false),
            cand(Some("Detail"), "T_B", true, false),
            cand(Some("FixtureTexture"), "T_BC3", false, true),
        ];
        let ch = choose(&c);
        assert_eq!(ch.normal, Some((1, "TC_Normalmap")));
        assert_eq!(ch.base_color, Some((2, "first colour texture")));
        // A texture named like a colour map, behind a neutral parameter.
        let c = [
            cand(Some("Tex1"), "T_Stone_ORM", false, false),
            cand(Some("Tex2"), "T_Stone_D", false, true),
        ];
        assert_eq!(choose(&c).base_color, Some((1, "texture name")));
        assert_eq!(choose(&[]), Choice::default());
    }

    #[test]
    fn instance_parameters_and_referenced_textures_are_read() {
        use pakrat_asset::props::PropType;
        let p = |name: &str, value: Value| Property {
            name: name.into(),
            index: 0,
            ty: PropType::Bool,
            value,
        };
        let obj = |s: &str| Value::Object(Some(s.into()));
        let props = vec![
            p("Parent", obj("/Game/M/M_Base.M_Base")),
            p(
                "TextureParameterValues",
                Value::Array(vec![Value::Struct(vec![
                    p(
                        "ParameterInfo",
                        Value::Struct(vec![p("Name", Value::Name("BaseColor".into()))]),
                    ),
                    p("ParameterValue", obj("/Game/T/T_A.T_A")),
                ])]),
            ),
            p(
                "ReferencedDefaultTextures",
                Value::Array(vec![Value::Object(None), obj("<import 3 unresolved>")]),
            ),
            p(
                "CachedExpressionData",
                Value::Struct(vec![p(
                    "ReferencedTextures",
                    Value::Array(vec![obj("/Game/T/T_B.T_B")]),
                )]),
            ),
        ];
        let m = material_info(&props);
        assert_eq!(m.parent.as_deref(), Some("/Game/M/M_Base.M_Base"));
        assert_eq!(m.textures.len(), 2);
        assert_eq!(m.textures[0].parameter.as_deref(), Some("BaseColor"));
        assert_eq!(m.textures[1].texture, "/Game/T/T_B.T_B");
        let e = vec![
            p("ParameterName", Value::Name("Diffuse".into())),
            p("Texture", obj("/Game/T/T_C.T_C")),
        ];
        let t = expression_texture("MaterialExpressionTextureSampleParameter2D", &e).unwrap();
        assert_eq!(t.parameter.as_deref(), Some("Diffuse"));
        assert_eq!(expression_texture("MaterialExpressionConstant", &e), None);
        let m = vec![p(
            "Expressions",
            Value::Array(vec![obj("/Game/M/M_A.M_A:Sample_0"), Value::Object(None)]),
        )];
        assert_eq!(expressions(&m), ["/Game/M/M_A.M_A:Sample_0"]);
    }
}
