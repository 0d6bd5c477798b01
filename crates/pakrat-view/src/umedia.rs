//! UE4/UE5 textures and sounds in the viewer: `GET /api/uimage` (one mip
//! of one face or slice of a texture export, as an 8-bit PNG) and
//! `GET /api/uaudio` (a SoundWave's audio: PCM and ADPCM as WAV, other
//! codecs as cooked), and the summary `/api/asset` gives of such an export
//! (sizes, mips, faces or slices, format) for the page's pickers.
//!
//! The texture model and the audio come from `pakrat_asset::texture` and
//! `pakrat_asset::sound`, as `pakrat export` reads them; pixels from
//! `pakrat_texture::decode`. The package is opened afresh for each answer
//! (its bulk data files are read whole, and dropped with it); answers are
//! kept in the preview cache. Before reading bulk data or decoding, a
//! request reserves from the pool the companion files it reads, the mip's
//! bytes, the decoded surface, its 8-bit copy and the PNG.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use pakrat_asset::bulk::{BulkFile, BulkLocation, BulkRef};
use pakrat_asset::props::{schemas_with_package, Asset, NoSchemas, Opened, Schemas};
use pakrat_asset::sound::{self, SoundWave};
use pakrat_asset::texture::{self, Texture, TextureKind, VirtualTexture};
use pakrat_iostore::toc::{ChunkId, ChunkType};
use pakrat_texture::{DecodeOptions, Image, PixelFormat, Pixels};
use serde::Deserialize;
use serde_json::{json, Value as Json};

use crate::object::bytes_response;
use crate::uasset::{form_of, Form, Holder, Mappings};
use crate::*;

/// Cube faces in the order they are stored.
const FACES: [&str; 6] = ["+X", "-X", "+Y", "-Y", "+Z", "-Z"];

#[derive(Deserialize)]
pub(crate) struct MediaQ {
    pub(crate) path: String,
    #[serde(default)]
    pub(crate) package: String,
    pub(crate) export: usize,
    #[serde(default)]
    mip: usize,
    #[serde(default)]
    slice: u32,
}

/// What `/api/asset` adds to a texture export (`"texture"`), a
/// SoundWave export (`"sound"`) or a mesh the 3D view draws (`"mesh"`,
/// its class: read when `/api/umesh` is asked): the model's facts for the
/// page, or the reader's error. `None` for other classes.
pub(crate) fn summary(
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
) -> Option<(&'static str, Json)> {
    let class = asset.exports.get(i)?.class_name();
    if texture::is_texture_class(class) {
        let j = match texture::read_export(asset, i, schemas) {
            Ok(t) => texture_json(&t),
            Err(e) => json!({"error": e.to_string()}),
        };
        return Some(("texture", j));
    }
    if crate::umesh::is_viewable(class) {
        return Some(("mesh", json!({"class": class})));
    }
    if sound::is_sound_class(class) {
        let j = match sound::read_export(asset, i, schemas) {
            Ok(w) => sound_json(&w),
            Err(e) => json!({"error": e.to_string()}),
        };
        return Some(("sound", j));
    }
    None
}

/// Why a texture cannot be previewed, when it cannot.
fn not_shown(t: &Texture) -> Option<String> {
    if PixelFormat::from_ue_name(&t.format).is_none() {
        return Some(format!("pixel format {} is not supported", t.format));
    }
    if t.mips.is_empty() {
        return match &t.virtual_texture {
            Some(vt) => vt_not_shown(vt),
            None => Some("the texture has no mips".into()),
        };
    }
    if t.mips.iter().all(|m| m.data.is_none()) {
        return Some(
            "the cook left the mip data out (bSerializeMipData false: a mip data provider holds it)"
                .into(),
        );
    }
    None
}

/// The names of a texture's surfaces (faces, slices) for the picker.
fn surface_names(t: &Texture, n: u32) -> Vec<String> {
    (0..n)
        .map(|i| match t.kind {
            TextureKind::Cube => FACES[(i % 6) as usize].to_string(),
            TextureKind::CubeArray => format!("{} {}", i / 6, FACES[(i % 6) as usize]),
            _ => i.to_string(),
        })
        .collect()
}

/// Why a virtual texture cannot be previewed, when it cannot: its layer
/// format, or a layout without per-mip tile data (before UE 5).
fn vt_not_shown(vt: &VirtualTexture) -> Option<String> {
    let f = vt.layer_formats.first().map_or("none", String::as_str);
    if PixelFormat::from_ue_name(f).is_none() {
        return Some(format!("virtual texture layer format {f} is not supported"));
    }
    if vt.tile_offset_data.is_empty() {
        return Some("virtual texture in the pre-UE 5 tile layout: not assembled".into());
    }
    None
}

fn texture_json(t: &Texture) -> Json {
    let mut mips: Vec<Json> = t
        .mips
        .iter()
        .map(|m| {
            let n = t.surfaces_of(m);
            json!({"width": m.width, "height": m.height, "depth": m.depth,
                   "surfaces": n, "present": m.data.is_some(),
                   "bytes": m.data.as_ref().map(BulkRef::size)})
        })
        .collect();
    // A virtual texture's mips are its tile layouts (UDIM blocks included,
    // assembled into one image per mip).
    if let (true, Some(vt)) = (t.mips.is_empty(), &t.virtual_texture) {
        mips = vt
            .tile_offset_data
            .iter()
            .map(|d| {
                json!({"width": d.width.saturating_mul(vt.tile_size),
                       "height": d.height.saturating_mul(vt.tile_size), "depth": 1,
                       "surfaces": 1, "present": true, "bytes": null, "tiles": d.width.saturating_mul(d.height)})
            })
            .collect();
    }
    let surface = match t.kind {
        TextureKind::Cube | TextureKind::CubeArray => "face",
        TextureKind::Volume => "depth slice",
        _ => "slice",
    };
    let names = t.mips.first().map(|m| surface_names(t, t.surfaces_of(m)));
    json!({
        "class": t.class,
        "kind": t.kind,
        "format": t.format,
        "width": t.width,
        "height": t.height,
        "slices": t.slices,
        "surface": surface,
        "surface_names": names,
        "srgb": t.srgb,
        "compression": t.compression,
        "hdr": PixelFormat::from_ue_name(&t.format).is_some_and(PixelFormat::is_hdr),
        "mips": mips,
        "virtual_texture": t.virtual_texture.as_ref().map(|v| json!({
            "width": v.width, "height": v.height, "mips": v.mips, "chunks": v.chunks.len(),
            "udim_blocks": [v.width_in_blocks, v.height_in_blocks], "tile_size": v.tile_size,
            "format": v.layer_formats.first()})),
        "not_shown": not_shown(t),
    })
}

/// How the viewer serves audio of `format`: (extension, MIME type, whether
/// a browser plays it, whether pakrat decodes it).
fn audio_kind(format: &str) -> (&'static str, &'static str, bool, bool) {
    let f = format.to_ascii_uppercase();
    match f.as_str() {
        "PCM" | "ADPCM" => ("wav", "audio/wav", true, true),
        f if f.starts_with("OGG") => ("ogg", "audio/ogg", true, false),
        "OPUS" => ("opus", "application/octet-stream", false, false),
        "BINKA" => ("binka", "application/octet-stream", false, false),
        "RADA" => ("rada", "application/octet-stream", false, false),
        "AT9" => ("at9", "application/octet-stream", false, false),
        _ => ("bin", "application/octet-stream", false, false),
    }
}

fn sound_json(w: &SoundWave) -> Json {
    let (ext, mime, playable, decoded) = audio_kind(&w.format);
    json!({
        "format": w.format,
        "streamed": w.streamed,
        "chunks": w.chunks.len(),
        "audio_bytes": w.audio_size(),
        "extension": ext,
        "mime": mime,
        "playable": playable,
        "decoded": decoded,
    })
}

/// The package of the request, opened afresh, with its mappings.
pub(crate) struct Media {
    pub(crate) file: PathBuf,
    pub(crate) opened: Opened,
    pub(crate) holder: Holder,
    pub(crate) mappings: Mappings,
    /// The package's bytes as opening counted them.
    pub(crate) bytes: u64,
}

/// The file, its form and the cache key of an answer of the request.
pub(crate) fn where_of(
    app: &App,
    q: &MediaQ,
    what: &str,
) -> Result<(PathBuf, Form, String), ApiError> {
    let file = app.resolve(&q.path)?;
    let form = form_of(&file, &q.path, &q.package)?;
    let key = format!(
        "ue\0{what}\0{}\0{}",
        app.opened_key(&file, form, q.package.trim()),
        q.export
    );
    Ok((file, form, key))
}

impl Media {
    pub(crate) fn open(
        app: &App,
        q: &MediaQ,
        file: PathBuf,
        form: Form,
    ) -> Result<Media, ApiError> {
        let global = match form {
            Form::Container => app.global_for(&file),
            _ => None,
        };
        let (opened, holder, bytes) =
            app.open_uncached(&file, form, q.package.trim(), global.as_deref())?;
        let mappings = if opened.asset().unversioned {
            app.mappings_for(&file)
        } else {
            Ok(None)
        };
        Ok(Media {
            file,
            opened,
            holder,
            mappings,
            bytes,
        })
    }

    /// The export's class, checked: 404 past the end, 400 when `is`
    /// refuses it.
    pub(crate) fn check(
        &self,
        q: &MediaQ,
        is: fn(&str) -> bool,
        kind: &str,
    ) -> Result<(), ApiError> {
        let asset = self.opened.asset();
        let Some(e) = asset.exports.get(q.export) else {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                format!(
                    "{}: no export {} ({} exports)",
                    q.path,
                    q.export,
                    asset.exports.len()
                ),
            ));
        };
        if !is(e.class_name()) {
            return Err(bad(format!(
                "{}: {} is a {}, not a {kind}",
                q.path,
                e.path,
                e.class_name()
            )));
        }
        Ok(())
    }

    /// Run `f` with the package's schemas (its own, then the mappings).
    pub(crate) fn with_schemas<T>(&self, f: impl FnOnce(&Asset<'_>, &dyn Schemas) -> T) -> T {
        let asset = self.opened.asset();
        let none = NoSchemas;
        let base: &dyn Schemas = match &self.mappings {
            Ok(Some((_, m))) => m.as_ref(),
            _ => &none,
        };
        let with = schemas_with_package(&asset, base);
        f(&asset, &with)
    }

    /// Bytes reading the companion files of `refs` holds (each is read
    /// whole): the files' sizes as the pak or container states them. A
    /// loose companion that is a symbolic link out of the opened folder is
    /// refused (403).
    pub(crate) fn companions_cost(&self, app: &App, refs: &[&BulkRef]) -> Result<u64, ApiError> {
        let wanted: HashSet<(BulkFile, u8)> = refs
            .iter()
            .filter_map(|r| match r.location {
                BulkLocation::File(f) => Some((f, r.cooked_index)),
                _ => None,
            })
            .collect();
        let mut sum = 0u64;
        for (f, ci) in wanted {
            sum += match &self.holder {
                Holder::Loose => {
                    let stem = stem(&self.file.to_string_lossy());
                    let p = PathBuf::from(f.file_name(&stem, ci));
                    app.inside_or_403(&p)?;
                    std::fs::metadata(&p).map_or(0, |m| m.len())
                }
                Holder::Pak(paks, entry) => {
                    let want = f.file_name(&stem(entry), ci);
                    let e = paks[0]
                        .index
                        .entries
                        .iter()
                        .find(|x| !x.deleted() && x.path.eq_ignore_ascii_case(&want));
                    e.map_or(0, |e| {
                        2 * e.uncompressed_size + crate::member::pak_stream_cost(e)
                    })
                }
                Holder::Container(c) => zen_companion_size(c, &self.opened.asset(), f, ci),
            };
        }
        Ok(sum)
    }
}

/// A path without its last extension (as the library names companions).
fn stem(p: &str) -> String {
    match p.rsplit_once('.') {
        Some((s, e)) if !e.contains('/') => s.to_string(),
        _ => p.to_string(),
    }
}

/// The length of zen package `asset`'s companion chunk `f` (cooked index
/// `ci`); when its id is not found by the package's name, the longest
/// chunk of that type (whatever the library then finds is counted).
fn zen_companion_size(
    c: &pakrat_iostore::Container,
    asset: &Asset<'_>,
    f: BulkFile,
    ci: u8,
) -> u64 {
    let ty = match f {
        BulkFile::Ubulk => ChunkType::BulkData,
        BulkFile::Uptnl => ChunkType::OptionalBulkData,
        BulkFile::MemoryMapped => ChunkType::MemoryMappedBulkData,
    };
    let toc = c.toc();
    let Some(raw) = ty.to_raw(toc.numbering) else {
        return 0;
    };
    let id = pakrat_codec::names::package_id(&asset.package);
    let block = u64::from(toc.header.block_size);
    let len = match c.find_chunk(&ChunkId::new(id, u16::from(ci), 0, raw)) {
        Some(i) => toc.offsets.get(i).map_or(0, |o| o.length),
        None => (0..toc.len())
            .filter(|&i| toc.chunk_type(i) == ty)
            .filter_map(|i| toc.offsets.get(i).map(|o| o.length))
            .max()
            .unwrap_or(0),
    };
    len + 2 * block
}

fn not_found(msg: String) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, msg)
}

/// `GET /api/uimage?path=FILE[&package=P]&export=I[&mip=M][&slice=S]`:
/// mip M (0: the largest) of face or slice S of texture export I, as an
/// 8-bit RGBA PNG (16-bit values rounded, HDR values clamped to 0..1).
pub(crate) async fn image(
    State(app): State<Arc<App>>,
    Query(q): Query<MediaQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let name = format!("export{}-mip{}-{}.png", q.export, q.mip, q.slice);
        let (file, form, key) = where_of(&app, &q, "img")?;
        let key = format!("{key}\0{}\0{}", q.mip, q.slice);
        if let Some(v) = app.cached(&key) {
            return Ok(bytes_response(v.0.clone(), v.1, &name));
        }
        let m = Media::open(&app, &q, file, form)?;
        m.check(&q, texture::is_texture_class, "texture")?;
        let t = m
            .with_schemas(|a, s| texture::read_export(a, q.export, s))
            .map_err(damaged)?;
        let png = texture_png(&app, &m, &t, q.mip, q.slice)?;
        let v: Blob = Arc::new((png, "image/png"));
        app.remember(key, v.clone());
        Ok(bytes_response(v.0.clone(), v.1, &name))
    })
    .await
}

/// Memory previewing one `w`×`h` surface of `pf` holds besides its stored
/// bytes: the decoded surface (8 bytes a pixel, 16 for HDR formats), its
/// 8-bit copy and the PNG (4 bytes a pixel each at most), and 1 MiB.
pub fn preview_cost(pf_hdr: bool, w: u32, h: u32) -> u64 {
    let px = u64::from(w) * u64::from(h);
    (1 << 20) + px * (if pf_hdr { 16 } else { 8 } + 4 + 4)
}

fn texture_png(
    app: &App,
    m: &Media,
    t: &Texture,
    mip: usize,
    slice: u32,
) -> Result<Vec<u8>, ApiError> {
    if let Some(why) = not_shown(t) {
        return Err(ApiError(StatusCode::NOT_IMPLEMENTED, why));
    }
    if let (true, Some(vt)) = (t.mips.is_empty(), &t.virtual_texture) {
        return vt_png(app, m, t, vt, mip, slice);
    }
    let Some(pf) = PixelFormat::from_ue_name(&t.format) else {
        return Err(ApiError(StatusCode::NOT_IMPLEMENTED, t.format.clone()));
    };
    let mp = t
        .mips
        .get(mip)
        .ok_or_else(|| not_found(format!("no mip {mip}: the texture has {}", t.mips.len())))?;
    let r = mp.data.as_ref().ok_or_else(|| {
        not_found(format!(
            "mip {mip}: the cook left its data out (bSerializeMipData false)"
        ))
    })?;
    let n = t.surfaces_of(mp);
    if slice >= n {
        return Err(not_found(format!(
            "no face or slice {slice}: mip {mip} has {n}"
        )));
    }
    let cost =
        m.companions_cost(app, &[r])? + r.size() + preview_cost(pf.is_hdr(), mp.width, mp.height);
    let _held = app.budget.reserve(cost, "previewing this texture")?;
    let data = m.opened.bulk(r, m.holder.from()).map_err(damaged)?;
    let size = pf.slice_size(mp.width, mp.height).ok_or_else(|| {
        damaged(format!(
            "mip {}x{}: its size overflows",
            mp.width, mp.height
        ))
    })?;
    let need = size.saturating_mul(u64::from(n));
    if (data.len() as u64) < need {
        return Err(damaged(format!(
            "{}: mip {}x{}: {} bytes, {n} surfaces of {} need {need}",
            m.opened.origin,
            mp.width,
            mp.height,
            data.len(),
            pf.ue_name()
        )));
    }
    let at = (u64::from(slice) * size) as usize;
    let bytes = &data[at..at + size as usize];
    let opts = DecodeOptions {
        rebuild_normal_z: pf == PixelFormat::Bc5 || t.is_normal_map(),
        ..DecodeOptions::default()
    };
    let mut img = pakrat_texture::decode(pf, mp.width, mp.height, bytes, &opts)
        .map_err(|e| damaged(format!("{}: {e}", m.opened.origin)))?;
    drop(data);
    if matches!(pf, PixelFormat::Astc { .. }) && t.is_normal_map() {
        astc_normal_to_xyz(&mut img);
    }
    to_png(img)
}

/// Mip `mip` of a virtual texture, its tiles (UDIM blocks included)
/// assembled into one image, as `pakrat export` writes it.
fn vt_png(
    app: &App,
    m: &Media,
    t: &Texture,
    vt: &VirtualTexture,
    mip: usize,
    slice: u32,
) -> Result<Vec<u8>, ApiError> {
    if slice != 0 {
        return Err(not_found(format!(
            "no slice {slice}: a virtual texture has one"
        )));
    }
    let f = vt.layer_formats.first().map_or("", String::as_str);
    let pf = PixelFormat::from_ue_name(f)
        .ok_or_else(|| ApiError(StatusCode::NOT_IMPLEMENTED, f.to_string()))?;
    let phys = vt.physical_tile_size();
    let packed = pf
        .slice_size(phys, phys)
        .ok_or_else(|| damaged(format!("tile size {phys} overflows")))?;
    let opts = DecodeOptions {
        rebuild_normal_z: pf == PixelFormat::Bc5 || t.is_normal_map(),
        ..DecodeOptions::default()
    };
    let layout = vt
        .mip_tiles(mip, packed, opts.max_pixels)
        .map_err(|e| not_found(format!("virtual texture mip {mip}: {e}")))?;
    let chunk = &vt.chunks[layout.chunk].data;
    // Decoded tiles are held beside the assembled image: twice its cost.
    let cost = m.companions_cost(app, &[chunk])?
        + chunk.size()
        + 2 * preview_cost(pf.is_hdr(), layout.width, layout.height);
    let _held = app
        .budget
        .reserve(cost, "previewing this virtual texture")?;
    let data = m.opened.bulk(chunk, m.holder.from()).map_err(damaged)?;
    let tiles = layout
        .tile_slices(&data)
        .map_err(|e| damaged(format!("{}: {e}", m.opened.origin)))?;
    let grid = pakrat_texture::TileGrid {
        width: layout.width,
        height: layout.height,
        tile: vt.tile_size,
        border: vt.tile_border_size,
    };
    let img = pakrat_texture::assemble_tiles(pf, grid, &tiles, &opts)
        .map_err(|e| damaged(format!("{}: {e}", m.opened.origin)))?;
    drop(data);
    to_png(img)
}

/// An image as an 8-bit RGBA PNG.
fn to_png(img: Image) -> Result<Vec<u8>, ApiError> {
    let img = match img.pixels {
        Pixels::Rgba8(_) => img,
        _ => img.to_rgba8(),
    };
    let mut png = Vec::new();
    pakrat_texture::write_png(&img, &mut png)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(png)
}

/// `GET /api/udds?path=FILE[&package=P]&export=I`: texture export I
/// undecoded, every mip of every face or slice, as one DDS (what `pakrat
/// export --format dds` writes).
pub(crate) async fn dds(
    State(app): State<Arc<App>>,
    Query(q): Query<MediaQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let (file, form, key) = where_of(&app, &q, "dds")?;
        let name = format!("export{}.dds", q.export);
        if let Some(v) = app.cached(&key) {
            return Ok(bytes_response(v.0.clone(), v.1, &name));
        }
        let m = Media::open(&app, &q, file, form)?;
        m.check(&q, texture::is_texture_class, "texture")?;
        let t = m
            .with_schemas(|a, s| texture::read_export(a, q.export, s))
            .map_err(damaged)?;
        let out = texture_dds(&app, &m, &t)?;
        let v: Blob = Arc::new((out, "application/octet-stream"));
        app.remember(key, v.clone());
        Ok(bytes_response(v.0.clone(), v.1, &name))
    })
    .await
}

/// Every mip of `t`, undecoded, as a DDS file; reserved first: the
/// companion files, the mips' bytes and the file (as many again), 1 MiB.
fn texture_dds(app: &App, m: &Media, t: &Texture) -> Result<Vec<u8>, ApiError> {
    use pakrat_texture::{DdsInfo, DdsKind};
    if let Some(why) = not_shown(t) {
        return Err(ApiError(StatusCode::NOT_IMPLEMENTED, why));
    }
    let Some(pf) = PixelFormat::from_ue_name(&t.format) else {
        return Err(ApiError(StatusCode::NOT_IMPLEMENTED, t.format.clone()));
    };
    let refs = t
        .mips
        .iter()
        .map(|m| m.data.as_ref())
        .collect::<Option<Vec<&BulkRef>>>()
        .ok_or_else(|| {
            ApiError(
                StatusCode::NOT_IMPLEMENTED,
                "the cook left some mips' data out: a DDS needs every mip".into(),
            )
        })?;
    let total: u64 = refs.iter().map(|r| r.size()).sum();
    let cost = (1 << 20) + m.companions_cost(app, &refs)? + 2 * total;
    let _held = app.budget.reserve(cost, "writing this texture as DDS")?;
    let mut mips = Vec::with_capacity(refs.len());
    for (mp, r) in t.mips.iter().zip(&refs) {
        let data = m.opened.bulk(r, m.holder.from()).map_err(damaged)?;
        let slice = pf.slice_size(mp.width, mp.height).ok_or_else(|| {
            damaged(format!(
                "mip {}x{}: its size overflows",
                mp.width, mp.height
            ))
        })?;
        let need = slice.saturating_mul(u64::from(t.surfaces_of(mp)));
        if (data.len() as u64) < need {
            return Err(damaged(format!(
                "{}: mip {}x{}: {} bytes, {need} needed",
                m.opened.origin,
                mp.width,
                mp.height,
                data.len()
            )));
        }
        mips.push((data, slice));
    }
    let slices = t.slices.max(1);
    let volume = t.kind == TextureKind::Volume;
    let kind = match t.kind {
        TextureKind::Texture2D => DdsKind::Texture2D,
        TextureKind::Cube => DdsKind::Cube,
        TextureKind::Array => DdsKind::Array(slices),
        TextureKind::CubeArray => DdsKind::CubeArray(slices / 6),
        TextureKind::Volume => DdsKind::Volume,
    };
    let surfaces: Vec<Vec<&[u8]>> = if volume {
        vec![mips.iter().map(|(d, _)| &d[..]).collect()]
    } else {
        (0..slices)
            .map(|s| {
                mips.iter()
                    .map(|(d, slice)| &d[(u64::from(s) * slice) as usize..][..*slice as usize])
                    .collect()
            })
            .collect()
    };
    let info = DdsInfo {
        format: pf,
        width: t.width,
        height: t.height,
        depth: if volume { t.mips[0].depth.max(1) } else { 1 },
        kind,
        mips: t.mips.len() as u32,
    };
    let mut out = Vec::new();
    pakrat_texture::write_dds(&info, &surfaces, &mut out).map_err(damaged)?;
    Ok(out)
}

/// UE's ASTC normal maps keep X in R, G and B and Y in alpha (as `pakrat
/// export` reads them): Y to green, Z rebuilt in blue, alpha opaque.
fn astc_normal_to_xyz(img: &mut Image) {
    if let Pixels::Rgba8(v) = &mut img.pixels {
        for px in v.chunks_exact_mut(4) {
            let (x, y) = (px[0], px[3]);
            let f = |c: u8| f64::from(c) / 255.0 * 2.0 - 1.0;
            let z = (1.0 - f(x) * f(x) - f(y) * f(y)).max(0.0).sqrt();
            px[1] = y;
            px[2] = ((z + 1.0) / 2.0 * 255.0).round() as u8;
            px[3] = 255;
        }
    }
}

/// `GET /api/uaudio?path=FILE[&package=P]&export=I`: SoundWave export
/// I's audio as `pakrat export` writes it: PCM WAV, ADPCM decoded to
/// 16-bit PCM WAV, other codecs as cooked (Ogg Vorbis as `audio/ogg`, the
/// rest `application/octet-stream`).
pub(crate) async fn audio(
    State(app): State<Arc<App>>,
    Query(q): Query<MediaQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let (file, form, key) = where_of(&app, &q, "audio")?;
        let m = Media::open(&app, &q, file, form)?;
        m.check(&q, sound::is_sound_class, "sound wave")?;
        let w = m
            .with_schemas(|a, s| sound::read_export(a, q.export, s))
            .map_err(damaged)?;
        let (ext, mime, _, _) = audio_kind(&w.format);
        let name = format!("export{}.{ext}", q.export);
        if let Some(v) = app.cached(&key) {
            return Ok(bytes_response(v.0.clone(), v.1, &name));
        }
        let refs: Vec<&BulkRef> = w.chunks.iter().map(|c| &c.bulk).collect();
        let stored: u64 = w.chunks.iter().map(|c| c.bulk.size()).sum();
        // The chunks, the audio put together and its copy, and ADPCM's
        // 16-bit samples (at most 4 per byte).
        let audio = w.audio_size();
        let adpcm = w.format.eq_ignore_ascii_case("ADPCM");
        let cost = (1 << 20)
            + m.companions_cost(&app, &refs)?
            + stored
            + 2 * audio
            + if adpcm { 4 * audio } else { 0 };
        let _held = app.budget.reserve(cost, "reading this sound")?;
        let a = w.audio(&m.opened, m.holder.from(), true).map_err(damaged)?;
        // Served as Ogg only when it is an Ogg stream.
        let mime = if mime == "audio/ogg" && !a.bytes.starts_with(b"OggS") {
            "application/octet-stream"
        } else {
            mime
        };
        let v: Blob = Arc::new((a.bytes, mime));
        app.remember(key, v.clone());
        Ok(bytes_response(v.0.clone(), v.1, &name))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audio_kinds_name_what_plays() {
        assert_eq!(audio_kind("PCM"), ("wav", "audio/wav", true, true));
        assert_eq!(
            audio_kind("OGG10000-1-1-1-1-1"),
            ("ogg", "audio/ogg", true, false)
        );
        assert!(!audio_kind("BINKA").2);
        assert_eq!(stem("a/b.c/d.uasset"), "a/b.c/d");
        assert_eq!(stem("a.b/c"), "a.b/c");
    }

    #[test]
    fn preview_cost_counts_decoded_copy_and_png() {
        assert_eq!(preview_cost(false, 1024, 1024), (1 << 20) + (16 << 20));
        assert_eq!(preview_cost(true, 1024, 1024), (1 << 20) + (24 << 20));
    }
}
