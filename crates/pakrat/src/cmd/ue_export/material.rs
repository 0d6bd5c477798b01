//! The textures of a UE4/UE5 mesh's material slots: each slot's material
//! (`StaticMaterials` / `SkeletalMaterials`) is opened from the inputs
//! (any package of the containers, paks or loose files given, found by its
//! package path), its chain followed (`MaterialInstanceConstant` →
//! `Parent` → … → `Material`), the textures' own settings read, and
//! `pakrat_mesh::ue5::material::choose` picks the base colour and normal
//! map. The picked textures are decoded with the texture exporter (mip 0 as
//! PNG) and become the scene's images; each slot's outcome goes to the
//! `--json` manifest (`materials`). A material or texture that cannot be
//! found or decoded leaves the slot untextured with the reason: the mesh
//! still exports.

use std::collections::{HashMap, HashSet};

use pakrat_asset::props::{self, schemas_with_package};
use pakrat_mesh::model::{Image, Scene};
use pakrat_mesh::ue5::material::{self as rule, Candidate, MaterialInfo, TextureRef};
use serde::Serialize;

use super::{open_job, Ctx, Job};

/// Package paths (lower case) → where the package is.
pub type PackageIndex = HashMap<String, Job>;

/// Steps of a material chain followed at most.
const MAX_CHAIN: usize = 16;

/// What one material slot shows.
#[derive(Debug, Serialize)]
pub struct MaterialUse {
    /// The slot's name.
    pub slot: String,
    /// The material's path (or an unresolved import's note).
    pub material: Option<String>,
    /// The base colour texture picked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_color: Option<TextureUse>,
    /// The normal map picked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normal: Option<TextureUse>,
    /// Why something is missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A texture a material slot uses.
#[derive(Clone, Debug, Serialize)]
pub struct TextureUse {
    /// The texture's object path.
    pub texture: String,
    /// The material parameter that names it (None: referenced unnamed).
    pub parameter: Option<String>,
    /// The rule that picked it (`parameter name`, `TC_Normalmap`, …).
    pub rule: &'static str,
    /// Embedded image size (0 when not embedded).
    pub width: u32,
    /// Embedded image height.
    pub height: u32,
    /// Why it is not embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every package of the inputs by package path; a later container, pak or
/// file of the same path wins (patch containers `_P` are sorted last).
pub fn index(all: &[(Job, String)]) -> PackageIndex {
    all.iter()
        .map(|(job, pkg)| (pkg.to_ascii_lowercase(), *job))
        .collect()
}

/// The package path of an object path (`/Game/M/MI_A.MI_A` → `/Game/M/MI_A`).
fn package_of(path: &str) -> &str {
    path.split(['.', ':']).next().unwrap_or(path)
}

/// Open the package holding `path` and run `f` on the object.
fn with_object<T>(
    c: &Ctx<'_>,
    path: &str,
    f: impl FnOnce(&props::Opened, props::BulkFrom<'_>, &props::Asset<'_>, usize) -> T,
) -> Result<T, String> {
    let pkg = package_of(path);
    let job = c
        .index
        .get(&pkg.to_ascii_lowercase())
        .ok_or_else(|| format!("package {pkg} is not among the inputs"))?;
    let (opened, from) = open_job(c, *job).map_err(|e| format!("{pkg}: {e}"))?;
    let asset = opened.asset();
    let i = asset
        .exports
        .iter()
        .position(|e| e.path.eq_ignore_ascii_case(path))
        .ok_or_else(|| format!("{pkg} has no object {path}"))?;
    Ok(f(&opened, from, &asset, i))
}

/// A material object's class and what it says: its own properties, and
/// the textures of the expressions it lists where the cook kept them
/// (exports of the same package).
fn material_object(c: &Ctx<'_>, path: &str) -> Result<(String, MaterialInfo), String> {
    with_object(c, path, |_, _, asset, i| {
        let with = schemas_with_package(asset, c.mappings);
        let d = props::decode_export(asset, i, &with);
        if let (Some(e), true) = (&d.error, d.properties.is_empty()) {
            return Err(format!("{path}: {e}"));
        }
        let mut info = rule::material_info(&d.properties);
        for x in rule::expressions(&d.properties) {
            let Some(k) = asset
                .exports
                .iter()
                .position(|e| e.path.eq_ignore_ascii_case(&x))
            else {
                continue;
            };
            let p = props::decode_export(asset, k, &with).properties;
            if let Some(t) = rule::expression_texture(asset.exports[k].class_name(), &p) {
                let at = info
                    .textures
                    .iter()
                    .filter(|t| t.parameter.is_some())
                    .count();
                info.textures.insert(
                    if t.parameter.is_some() {
                        at
                    } else {
                        info.textures.len()
                    },
                    t,
                );
            }
        }
        Ok((asset.exports[i].class_name().to_string(), info))
    })?
}

/// The textures of the chain from `path`, child first: a parameter an
/// instance sets hides its parent's of the same name, and an unnamed
/// texture is kept once, where no parameter names it.
fn chain_textures(c: &Ctx<'_>, path: &str) -> Result<(Vec<TextureRef>, Vec<String>), String> {
    let mut refs: Vec<TextureRef> = Vec::new();
    let mut notes = Vec::new();
    let mut seen = HashSet::new();
    let mut params = HashSet::new();
    let mut at = Some(path.to_string());
    for step in 0..MAX_CHAIN {
        let Some(p) = at.take() else { break };
        if !seen.insert(p.to_ascii_lowercase()) {
            notes.push(format!("the material chain loops at {p}"));
            break;
        }
        let (class, info) = match material_object(c, &p) {
            Ok(x) => x,
            Err(e) if step == 0 => return Err(e),
            Err(e) => {
                notes.push(format!("parent {p} not read: {e}"));
                break;
            }
        };
        if !class.contains("Material") {
            notes.push(format!("{p} is a {class}, not a material"));
            break;
        }
        for t in info.textures {
            match &t.parameter {
                Some(n) if !params.insert(n.to_ascii_lowercase()) => {}
                _ => refs.push(t),
            }
        }
        at = info.parent;
        if step + 1 == MAX_CHAIN && at.is_some() {
            notes.push(format!(
                "the material chain is longer than {MAX_CHAIN} steps"
            ));
        }
    }
    let named: HashSet<String> = refs
        .iter()
        .filter(|r| r.parameter.is_some())
        .map(|r| r.texture.to_ascii_lowercase())
        .collect();
    let mut unnamed = HashSet::new();
    refs.retain(|r| {
        r.parameter.is_some()
            || (!named.contains(&r.texture.to_ascii_lowercase())
                && unnamed.insert(r.texture.to_ascii_lowercase()))
    });
    Ok((refs, notes))
}

/// A texture's own `TC_Normalmap` and `SRGB`.
fn candidate(c: &Ctx<'_>, r: TextureRef) -> Candidate {
    let read = with_object(c, &r.texture, |_, _, asset, i| {
        let with = schemas_with_package(asset, c.mappings);
        pakrat_asset::texture::read_export(asset, i, &with).ok()
    });
    match read {
        Ok(Some(t)) => Candidate {
            normal_map: t.is_normal_map(),
            srgb: Some(t.srgb),
            r,
        },
        _ => Candidate {
            r,
            normal_map: false,
            srgb: None,
        },
    }
}

/// Decode `path` and add it to the scene's images (once per texture).
fn embed(
    c: &Ctx<'_>,
    path: &str,
    scene: &mut Scene,
    images: &mut HashMap<String, (usize, u32, u32)>,
    base: &str,
) -> Result<(usize, u32, u32), String> {
    if let Some(&x) = images.get(path) {
        return Ok(x);
    }
    let (png, w, h) = with_object(c, path, |opened, from, asset, i| {
        let with = schemas_with_package(asset, c.mappings);
        let t = pakrat_asset::texture::read_export(asset, i, &with).map_err(|e| e.to_string())?;
        super::texture::png_in_memory(opened, from, &t)
    })??;
    let name = path.rsplit(['/', '.']).next().unwrap_or(path).to_string();
    let file_base = base.rsplit('/').next().unwrap_or(base);
    let safe = pakrat_classic::export::safe_component(&name);
    // Two textures of one name in different packages: `T_A.png`, `T_A_2.png`.
    let mut uri = format!("{file_base}_textures/{safe}.png");
    let mut n = 1;
    while scene
        .images
        .iter()
        .any(|i| i.uri.eq_ignore_ascii_case(&uri))
    {
        n += 1;
        uri = format!("{file_base}_textures/{safe}_{n}.png");
    }
    scene.images.push(Image { uri, name, png });
    let x = (scene.images.len() - 1, w, h);
    images.insert(path.to_string(), x);
    Ok(x)
}

/// Resolve every slot of `slots` (the scene's materials, in the same
/// order) and set their textures in `scene`.
pub fn resolve(
    c: &Ctx<'_>,
    slots: &[(String, Option<String>)],
    scene: &mut Scene,
    base: &str,
) -> Vec<MaterialUse> {
    let mut images = HashMap::new();
    let mut out = Vec::new();
    for (k, (slot, material)) in slots.iter().enumerate() {
        let mut u = MaterialUse {
            slot: slot.clone(),
            material: material.clone(),
            base_color: None,
            normal: None,
            notes: Vec::new(),
        };
        match material.as_deref() {
            None => u.notes.push("the slot names no material".into()),
            Some(p) if !p.starts_with('/') => {
                u.material = None;
                u.notes.push(format!("the material is not resolved: {p}"));
            }
            Some(p) => match chain_textures(c, p) {
                Err(e) => u.notes.push(e),
                Ok((refs, notes)) => {
                    u.notes.extend(notes);
                    if refs.is_empty() {
                        u.notes.push("the material chain names no texture".into());
                    }
                    let cands: Vec<Candidate> = refs.into_iter().map(|r| candidate(c, r)).collect();
                    let choice = rule::choose(&cands);
                    let mut pick = |x: Option<(usize, &'static str)>| {
                        let (i, why) = x?;
                        let cand = &cands[i];
                        let mut t = TextureUse {
                            texture: cand.r.texture.clone(),
                            parameter: cand.r.parameter.clone(),
                            rule: why,
                            width: 0,
                            height: 0,
                            error: None,
                        };
                        match embed(c, &cand.r.texture, scene, &mut images, base) {
                            Ok((img, w, h)) => {
                                (t.width, t.height) = (w, h);
                                Some((t, Some(img)))
                            }
                            Err(e) => {
                                t.error = Some(e);
                                Some((t, None))
                            }
                        }
                    };
                    let base_color = pick(choice.base_color);
                    let normal = pick(choice.normal);
                    let m = scene.materials.get_mut(k);
                    if let (Some(m), Some((_, img))) = (m, &base_color) {
                        m.base_color = *img;
                    }
                    let m = scene.materials.get_mut(k);
                    if let (Some(m), Some((_, img))) = (m, &normal) {
                        m.normal = *img;
                    }
                    u.base_color = base_color.map(|x| x.0);
                    u.normal = normal.map(|x| x.0);
                }
            },
        }
        out.push(u);
    }
    out
}
