//! `GET /api/asset`: a UE4/UE5 package (loose `.uasset`/`.umap` with its
//! `.uexp`, inside a `.pak`, or a zen package inside an IoStore container):
//! its exports, and one export's decoded properties and native data as
//! `pakrat props --json` writes them, with the references among them
//! resolved to links.
//!
//! Opening goes through `pakrat_asset::props::open` as `pakrat props` does;
//! decoding through `props::decode_export` with the package's own schemas
//! in front of the mappings ([`App::mappings_for`] says which `.usmap`).
//! Every step reserves its memory from the pool first.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use pakrat_asset::props::json::{ExportJson, ValueJson};
use pakrat_asset::props::open::{self as popen, package_path_of_file};
use pakrat_asset::props::{decode_export, schemas_with_package, Asset, NoSchemas, Opened, Schemas};
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::ScriptObjects;
use pakrat_iostore::ChunkType;
use serde::Deserialize;
use serde_json::{json, Map, Value as Json};

use crate::listing::JSON_ROW;
use crate::member::open_pak;
use crate::uvalue::{
    cut_long_arrays, max_elements, package_of, page, references, references_in, Reference,
};
use crate::*;

/// Bytes of opened packages kept for the next request (oldest dropped
/// first; a package over a quarter of it is not kept).
pub const OPENED_CACHE_BYTES: u64 = 64 << 20;

/// Mappings files and global containers kept loaded (each, oldest
/// dropped first).
const KEPT: usize = 4;

/// Memory decoding one export reserves: this many times its serialized
/// bytes, plus 1 MiB (the decoded tree and its JSON; an estimate: over the
/// UE 5.8 fixture containers an answer is at most 9.5 times the bytes of
/// its export, for exports of 1 KiB or more, and at most 25 KB).
pub const DECODE_FACTOR: u64 = 64;

/// What the viewer keeps between requests for UE4/UE5 packages.
#[derive(Default)]
pub(crate) struct UeCache {
    usmaps: VecDeque<(PathBuf, Arc<Usmap>)>,
    globals: VecDeque<(PathBuf, Arc<ScriptObjects>)>,
    opened: VecDeque<(String, Arc<Opened>, u64)>,
    opened_bytes: u64,
}

/// Where a package lives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    Loose,
    Pak,
    Container,
}

#[derive(Deserialize)]
pub(crate) struct AssetQ {
    path: String,
    #[serde(default)]
    package: String,
    export: Option<usize>,
    /// A long array of the export (a JSON pointer of its `cut`) …
    at: Option<String>,
    /// … from this element on.
    #[serde(default)]
    from: usize,
}

/// `GET /api/asset?path=FILE[&package=P][&export=I]`: without `export`,
/// the package's exports (name, class, outer) and which mappings and
/// global container it is read with; with `export`, that export decoded
/// (the shape of one export of `pakrat props --json`, arrays cut at
/// [`max_elements`], `cut` saying where; `&at=POINTER&from=K` answers the
/// elements from K on of the array `cut` names) and `links`: for each reference
/// the viewer can follow, where it leads. FILE is a `.uasset`/`.umap`
/// (no `package`), a `.pak` or a `.utoc` (`package`: package path, or the
/// file's path inside it).
pub(crate) async fn asset(
    State(app): State<Arc<App>>,
    Query(q): Query<AssetQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let form = form_of(&file, &q.path, &q.package)?;
        let (opened, global) = app.open_asset(&file, form, q.package.trim())?;
        let asset = opened.asset();
        // Tagged properties name themselves: no mappings read for them.
        let mappings = if asset.unversioned {
            app.mappings_for(&file)
        } else {
            Ok(None)
        };
        let mut j = match q.export {
            None => package_json(&app, &asset)?,
            Some(i) => export_json(&app, &file, form, &q, &asset, i, &mappings)?,
        };
        j["file"] = json!(q.path);
        j["origin"] = json!(app.shown(&opened.origin));
        j["package"] = json!(asset.package);
        j["unversioned"] = json!(asset.unversioned);
        j["global"] = global.map_or(Json::Null, |g| json!(app.rel_of(&g)));
        j["mappings"] = match &mappings {
            Ok(Some((label, _))) => json!(label),
            _ => Json::Null,
        };
        if let Err(e) = &mappings {
            j["mappings_error"] = json!(e);
        }
        Ok(axum::Json(j).into_response())
    })
    .await
}

/// Where the package `package` of `file` (`path` as the request named it)
/// lives: a 400 when `file` is no package, `.pak` or container, or names
/// no package in a container.
pub(crate) fn form_of(file: &Path, path: &str, package: &str) -> Result<Form, ApiError> {
    let form = match sniff(file) {
        "uasset" => Form::Loose,
        "pak" => Form::Pak,
        "utoc" => Form::Container,
        _ => {
            return Err(bad(format!(
                "{path}: not a UE4/UE5 package, .pak or IoStore container"
            )))
        }
    };
    if form != Form::Loose && package.trim().is_empty() {
        return Err(bad(format!(
            "{path}: a container: name the package (package=/Game/...)"
        )));
    }
    Ok(form)
}

/// What an opened package's bulk data is read through: the pak or
/// container it was opened from (none for a loose package).
pub(crate) enum Holder {
    Loose,
    /// The pak (one) and the package's entry path.
    Pak(Vec<pakrat_pak::Pak>, String),
    Container(Box<pakrat_iostore::Container>),
}

impl Holder {
    /// As `Opened::bulk` takes it.
    pub(crate) fn from(&self) -> pakrat_asset::props::BulkFrom<'_> {
        use pakrat_asset::props::BulkFrom;
        match self {
            Holder::Loose => BulkFrom::Loose,
            Holder::Pak(p, _) => BulkFrom::Paks(p),
            Holder::Container(c) => BulkFrom::Container(c),
        }
    }
}

/// The export list.
fn package_json(app: &App, asset: &Asset<'_>) -> Result<Json, ApiError> {
    let _held = app.budget.reserve(
        (asset.exports.len() + asset.imports.len()) as u64 * JSON_ROW,
        "listing this package's exports",
    )?;
    let exports: Vec<Json> = asset
        .exports
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!({"index": i, "name": e.name, "class": e.class, "outer": e.outer,
                   "path": e.path, "size": e.data.len()})
        })
        .collect();
    Ok(json!({"exports": exports, "imports": asset.imports.len()}))
}

/// Mappings: a label for the page and the model, none, or why they do not
/// read.
pub(crate) type Mappings = Result<Option<(String, Arc<Usmap>)>, String>;

/// One export, decoded.
fn export_json(
    app: &App,
    file: &Path,
    form: Form,
    q: &AssetQ,
    asset: &Asset<'_>,
    i: usize,
    mappings: &Mappings,
) -> Result<Json, ApiError> {
    let Some(info) = asset.exports.get(i) else {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            format!(
                "{}: no export {i} ({} exports)",
                q.path,
                asset.exports.len()
            ),
        ));
    };
    let cost = (1 << 20) + DECODE_FACTOR * info.data.len() as u64;
    let _held = app.budget.reserve(cost, "decoding this export")?;
    let none = NoSchemas;
    let base: &dyn Schemas = match mappings {
        Ok(Some((_, m))) => m.as_ref(),
        _ => &none,
    };
    let with = schemas_with_package(asset, base);
    let mut p = decode_export(asset, i, &with);
    if let Some(at) = &q.at {
        let Some(pg) = page(&mut p, at, q.from) else {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                format!("export {i} has no array, set or map at {at}"),
            ));
        };
        let refs = references_in(&pg.elements);
        return Ok(json!({
            "index": i,
            "at": at,
            "from": q.from,
            "total": pg.total,
            "elements": ValueJson(&pg.elements),
            "cut": pg.cut.into_iter().map(|(k, n)| (k, json!(n))).collect::<Map<_, _>>(),
            "max_elements": max_elements(),
            "links": links(app, file, form, q, asset, refs),
        }));
    }
    let cut = cut_long_arrays(&mut p);
    let mut j = serde_json::to_value(ExportJson { info, props: &p })
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    j["index"] = json!(i);
    j["cut"] = Json::Object(cut.into_iter().map(|(k, n)| (k, json!(n))).collect());
    j["max_elements"] = json!(max_elements());
    j["native_start"] = json!(p.native_start);
    j["size"] = json!(info.data.len());
    if let Some((k, v)) = crate::umedia::summary(asset, i, &with) {
        j[k] = v;
    }
    let mut refs = references(&p);
    // The export's outer is an export of this package too.
    if let Some(o) = &info.outer {
        refs.push(Reference {
            shown: o.clone(),
            object: o.clone(),
        });
    }
    j["links"] = Json::Object(links(app, file, form, q, asset, refs));
    Ok(j)
}

/// Where references lead: `{path, package, export}` for
/// an export of this package; `{path, package, object}` for an object of
/// another package the viewer found (same container or pak, or a loose
/// file beside this one); references it cannot follow are left out.
fn links(
    app: &App,
    file: &Path,
    form: Form,
    q: &AssetQ,
    asset: &Asset<'_>,
    refs: Vec<Reference>,
) -> Map<String, Json> {
    let here = app.rel_of(file);
    let mut by_path: HashMap<String, usize> = HashMap::new();
    for (k, e) in asset.exports.iter().enumerate() {
        by_path.entry(e.path.to_ascii_lowercase()).or_insert(k);
    }
    let mut others = Others::new(app, file, form, asset);
    let mut out = Map::new();
    for r in refs {
        if let Some(&k) = by_path.get(&r.object.to_ascii_lowercase()) {
            out.insert(
                r.shown,
                json!({"path": here, "package": q.package, "export": k}),
            );
            continue;
        }
        let pkg = package_of(&r.object);
        if pkg.starts_with("/Script/") || pkg.eq_ignore_ascii_case(&asset.package) {
            continue;
        }
        if let Some((path, package)) = others.find(pkg) {
            out.insert(
                r.shown,
                json!({"path": path, "package": package, "object": r.object}),
            );
        }
    }
    out
}

/// The other packages a reference may lead to: those of the same
/// container or pak, or loose files near this one; read once per request,
/// on the first reference out.
struct Others<'a> {
    app: &'a App,
    file: &'a Path,
    form: Form,
    package: &'a str,
    /// Container: its package ids; pak: package path (lower case) → the
    /// entry's path.
    ids: Option<HashSet<u64>>,
    entries: Option<HashMap<String, String>>,
}

impl<'a> Others<'a> {
    fn new(app: &'a App, file: &'a Path, form: Form, asset: &'a Asset<'_>) -> Self {
        Others {
            app,
            file,
            form,
            package: &asset.package,
            ids: None,
            entries: None,
        }
    }

    /// (file relative to the root, package query) of package `pkg`.
    fn find(&mut self, pkg: &str) -> Option<(String, String)> {
        let here = self.app.rel_of(self.file);
        match self.form {
            Form::Container => {
                let ids = self.ids.get_or_insert_with(|| {
                    container_package_ids(self.app, self.file).unwrap_or_default()
                });
                ids.contains(&pakrat_codec::names::package_id(pkg))
                    .then(|| (here, pkg.to_string()))
            }
            Form::Pak => {
                let entries = self
                    .entries
                    .get_or_insert_with(|| pak_packages(self.app, self.file));
                entries
                    .get(&pkg.to_ascii_lowercase())
                    .map(|e| (here, e.clone()))
            }
            Form::Loose => loose_package(self.app, self.file, self.package, pkg)
                .map(|f| (self.app.rel_of(&f), String::new())),
        }
    }
}

/// The package ids a container's header lists.
fn container_package_ids(app: &App, file: &Path) -> Option<HashSet<u64>> {
    let c = pakrat_iostore::Container::open(file, &app.keys()).ok()?;
    let hi = c.find_by_type(ChunkType::ContainerHeader)?;
    let len = c.toc().offsets.get(hi)?.length;
    let _held = app
        .budget
        .reserve(3 * len + (1 << 20), "reading the container header")
        .ok()?;
    let data = c.read_chunk(hi).ok()?;
    let h = pakrat_iostore::container_header::parse(&data).ok()?;
    Some(h.package_ids.into_iter().collect())
}

/// A pak's packages: package path (lower case) → entry path.
fn pak_packages(app: &App, file: &Path) -> HashMap<String, String> {
    let Ok(pak) = open_pak(app, file) else {
        return HashMap::new();
    };
    let mount = pak.index.mount_point.clone();
    pak.index
        .entries
        .iter()
        .filter(|e| !e.deleted() && is_header(&e.path))
        .filter_map(|e| {
            let p = package_path_of_file(&format!("{mount}{}", e.path))?;
            Some((p.to_ascii_lowercase(), e.path.clone()))
        })
        .collect()
}

fn is_header(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    p.ends_with(".uasset") || p.ends_with(".umap")
}

/// A loose package `pkg` near the loose package `file` (package `own`):
/// under the same content folder (the folder `own`'s path below its mount
/// point leads back to: `/Game/A/B` at `X/A/B.uasset` puts `/Game/C/D` at
/// `X/C/D.uasset`), else beside `file` by its name; `.uasset` or
/// `.umap`, inside the opened folder.
fn loose_package(app: &App, file: &Path, own: &str, pkg: &str) -> Option<PathBuf> {
    let parts = |p: &str| -> Vec<String> {
        p.trim_start_matches('/')
            .split('/')
            .map(str::to_string)
            .collect()
    };
    let (own, want) = (parts(own), parts(pkg));
    let mut candidates = Vec::new();
    // The content folder: `file` without the components of `own` after
    // its mount point.
    let tail = own.get(1..).unwrap_or(&[]);
    let stem = file.with_extension("");
    let mut root = Some(stem.as_path());
    let mut fits = !tail.is_empty();
    for part in tail.iter().rev() {
        let Some(r) = root else { break };
        fits &= r
            .file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(part));
        root = r.parent();
    }
    if let (true, Some(root), Some(a), Some(b)) = (fits, root, own.first(), want.first()) {
        if a.eq_ignore_ascii_case(b) && want.len() > 1 {
            candidates.push(root.join(want[1..].join("/")));
        }
    }
    if let (Some(dir), Some(leaf)) = (file.parent(), want.last()) {
        candidates.push(dir.join(leaf));
    }
    for c in candidates {
        for ext in ["uasset", "umap"] {
            let f = c.with_extension(ext);
            let Ok(real) = std::fs::canonicalize(&f) else {
                continue;
            };
            if real.starts_with(&app.root) && real.is_file() && sniff(&real) == "uasset" {
                return Some(real);
            }
        }
    }
    None
}

impl App {
    /// A path the page may show: relative to the root when inside it.
    fn shown(&self, origin: &str) -> String {
        let root = format!("{}/", self.root.display());
        origin.replace(&root, "")
    }

    /// Open the package (cached), and the global container it was read
    /// with (containers).
    fn open_asset(
        &self,
        file: &Path,
        form: Form,
        package: &str,
    ) -> Result<(Arc<Opened>, Option<PathBuf>), ApiError> {
        let key = self.opened_key(file, form, package);
        let global = match form {
            Form::Container => self.global_for(file),
            _ => None,
        };
        if let Some(o) = self.opened_cached(&key) {
            return Ok((o, global));
        }
        let (opened, _, bytes) = self.open_uncached(file, form, package, global.as_deref())?;
        let opened = Arc::new(opened);
        self.keep_opened(key, opened.clone(), bytes);
        Ok((opened, global))
    }

    /// What names package `package` of `file` as it is now: the file, the
    /// package, and the size and time of the file (and of a loose
    /// package's `.uexp`).
    pub(crate) fn opened_key(&self, file: &Path, form: Form, package: &str) -> String {
        let stamp = std::fs::metadata(file)
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        // A loose package changes with its `.uexp` too.
        let uexp_stamp = (form == Form::Loose)
            .then(|| std::fs::metadata(file.with_extension("uexp")).ok())
            .flatten()
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        format!("{}\0{package}\0{stamp:?}\0{uexp_stamp:?}", file.display())
    }

    /// Open the package afresh (not kept), with what its bulk data is read
    /// through, and its bytes.
    pub(crate) fn open_uncached(
        &self,
        file: &Path,
        form: Form,
        package: &str,
        global: Option<&Path>,
    ) -> Result<(Opened, Holder, u64), ApiError> {
        Ok(match form {
            Form::Loose => {
                // Its `.uexp` is read too: it must not lead out either.
                let uexp = file.with_extension("uexp");
                self.inside_or_403(&uexp)?;
                let size = std::fs::metadata(file).map_or(0, |m| m.len());
                let _held = self
                    .budget
                    .reserve((1 << 20) + size, "reading this package")?;
                let o = popen::open_loose(file, self.ue_version).map_err(damaged)?;
                (o, Holder::Loose, size)
            }
            Form::Pak => {
                let (o, pak, entry, n) = self.open_in_pak(file, package)?;
                (o, Holder::Pak(vec![pak], entry), n)
            }
            Form::Container => {
                let (o, c, n) = self.open_in_container(file, package, global)?;
                (o, Holder::Container(Box::new(c)), n)
            }
        })
    }

    /// A 403 when `p` exists and is a symbolic link out of the opened
    /// folder.
    pub(crate) fn inside_or_403(&self, p: &Path) -> Result<(), ApiError> {
        if let Ok(real) = std::fs::canonicalize(p) {
            if !real.starts_with(&self.root) {
                return Err(ApiError(
                    StatusCode::FORBIDDEN,
                    format!(
                        "{}: leads out of the opened folder (symbolic link)",
                        self.rel_of(p)
                    ),
                ));
            }
        }
        Ok(())
    }

    fn open_in_pak(
        &self,
        file: &Path,
        package: &str,
    ) -> Result<(Opened, pakrat_pak::Pak, String, u64), ApiError> {
        let pak = open_pak(self, file)?;
        let mount = &pak.index.mount_point;
        let q = package.split_once('.').map_or(package, |(p, _)| p);
        let found = pak.index.entries.iter().find(|e| {
            !e.deleted()
                && is_header(&e.path)
                && (e.path.eq_ignore_ascii_case(package)
                    || package_path_of_file(&format!("{mount}{}", e.path))
                        .is_some_and(|p| p.eq_ignore_ascii_case(q)))
        });
        let Some(e) = found else {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                format!("{}: no package {package}", self.rel_of(file)),
            ));
        };
        let uexp = format!("{}.uexp", e.path.rsplit_once('.').map_or(&*e.path, |x| x.0));
        let bytes = e.uncompressed_size
            + pak
                .index
                .entries
                .iter()
                .find(|x| !x.deleted() && x.path.eq_ignore_ascii_case(&uexp))
                .map_or(0, |x| x.uncompressed_size);
        let cost = (1 << 20) + 2 * bytes + crate::member::pak_stream_cost(e);
        let _held = self.budget.reserve(cost, "reading this package")?;
        let path = e.path.clone();
        let paks = [pak];
        let o = popen::open_in_paks(&paks, &path, self.ue_version).map_err(damaged)?;
        let [pak] = paks;
        Ok((o, pak, path, bytes))
    }

    fn open_in_container(
        &self,
        file: &Path,
        package: &str,
        global: Option<&Path>,
    ) -> Result<(Opened, pakrat_iostore::Container, u64), ApiError> {
        let c = pakrat_iostore::Container::open(file, &self.keys()).map_err(damaged)?;
        let script = match global {
            Some(g) => Some(self.script_objects(g)?),
            None => None,
        };
        // A file path below the mount point names its package path.
        let query = if package.starts_with('/') {
            package.to_string()
        } else {
            let mount = c.mount_point().unwrap_or("");
            package_path_of_file(&format!("{mount}{package}")).unwrap_or(package.to_string())
        };
        let cost = self.zen_open_cost(&c, &query)?;
        let _held = self.budget.reserve(cost.0, "reading this package")?;
        let o = popen::open_in_container(&c, script.as_deref(), &query, self.ue_version).map_err(
            |e| {
                let msg = self.shown(&e.to_string());
                if msg.contains(": no package ") {
                    ApiError(StatusCode::NOT_FOUND, msg)
                } else {
                    damaged(msg)
                }
            },
        )?;
        Ok((o, c, cost.1))
    }

    /// Memory opening zen package `query` of `c` holds, from the sizes the
    /// TOC and the container header state, and the package's chunk length:
    /// the container header (3 times: bytes and parsed), the package's
    /// chunk (3 times: bytes, its asset view, the names), the headers of
    /// the packages it imports, directly or not (each at most its chunk,
    /// twice: bytes and parsed), two blocks being decoded, and 1 MiB.
    /// Named otherwise than by a package path, or in a UE4 container
    /// (whose imports are container-wide), every package header counts.
    fn zen_open_cost(
        &self,
        c: &pakrat_iostore::Container,
        query: &str,
    ) -> Result<(u64, u64), ApiError> {
        let toc = c.toc();
        let len_of = |i: usize| toc.offsets.get(i).map_or(0, |o| o.length);
        let mut bundles: HashMap<u64, u64> = HashMap::new();
        for i in 0..toc.len() {
            let id = toc.chunk_ids[i];
            if toc.chunk_type(i) == ChunkType::ExportBundleData && id.index() == 0 {
                bundles.entry(id.id()).or_insert(len_of(i));
            }
        }
        let all: u64 = bundles.values().sum();
        let hi = c.find_by_type(ChunkType::ContainerHeader);
        let header = hi.map_or(0, len_of);
        let block = u64::from(toc.header.block_size);
        let base = (1 << 20) + 3 * header + 2 * block;
        let own = query
            .starts_with('/')
            .then(|| bundles.get(&pakrat_codec::names::package_id(query)))
            .flatten()
            .copied();
        let (Some(own), Some(hi)) = (own, hi) else {
            let biggest = bundles.values().copied().max().unwrap_or(0);
            return Ok((base + 2 * all + 3 * biggest, biggest));
        };
        // The packages it imports, from the container header's store
        // entries (read under its own reservation).
        let imported = {
            let _held = self
                .budget
                .reserve((1 << 20) + 3 * header, "reading the container header")?;
            let data = c.read_chunk(hi).map_err(damaged)?;
            let h = pakrat_iostore::container_header::parse(&data).map_err(damaged)?;
            let ue4 = pakrat_asset::zen::ZenLayout::for_header(h.form)
                .is_ok_and(|l| l == pakrat_asset::zen::ZenLayout::Ue4);
            if ue4 {
                all
            } else {
                let index: HashMap<u64, usize> = h
                    .package_ids
                    .iter()
                    .enumerate()
                    .map(|(i, &id)| (id, i))
                    .collect();
                let root = pakrat_codec::names::package_id(query);
                let mut seen: HashSet<u64> = HashSet::from([root]);
                let mut todo = vec![root];
                let mut sum = 0u64;
                while let Some(id) = todo.pop() {
                    let Some(entry) = index.get(&id).and_then(|&i| h.store_entries.get(i)) else {
                        continue;
                    };
                    for &dep in &entry.imported_packages {
                        if seen.insert(dep) {
                            sum += bundles.get(&dep).copied().unwrap_or(0);
                            todo.push(dep);
                        }
                    }
                }
                sum
            }
        };
        Ok((base + 3 * own + 2 * imported, own))
    }

    fn opened_cached(&self, key: &str) -> Option<Arc<Opened>> {
        let c = self.ue.lock().ok()?;
        c.opened
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, o, _)| o.clone())
    }

    fn keep_opened(&self, key: String, o: Arc<Opened>, bytes: u64) {
        let Ok(mut c) = self.ue.lock() else { return };
        if bytes > OPENED_CACHE_BYTES / 4 || c.opened.iter().any(|(k, _, _)| *k == key) {
            return;
        }
        c.opened_bytes += bytes;
        c.opened.push_back((key, o, bytes));
        while c.opened_bytes > OPENED_CACHE_BYTES || c.opened.len() > 32 {
            let Some((_, _, b)) = c.opened.pop_front() else {
                break;
            };
            c.opened_bytes -= b;
        }
    }

    /// Forget opened packages (the keys changed).
    pub(crate) fn forget_opened(&self) {
        if let Ok(mut c) = self.ue.lock() {
            c.opened.clear();
            c.opened_bytes = 0;
        }
    }

    /// The global container beside `utoc` or in a parent folder, up to the
    /// opened folder (as the engine mounts it; `pakrat props` looks the
    /// same way without the limit); a symbolic link out of it is passed
    /// over.
    pub(crate) fn global_for(&self, utoc: &Path) -> Option<PathBuf> {
        utoc.ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(&self.root))
            .filter_map(|d| std::fs::canonicalize(d.join("global.utoc")).ok())
            .find(|g| g.starts_with(&self.root) && g.is_file() && g.as_path() != utoc)
    }

    fn script_objects(&self, global: &Path) -> Result<Arc<ScriptObjects>, ApiError> {
        if let Some(s) = self.ue.lock().ok().and_then(|c| {
            c.globals
                .iter()
                .find(|(p, _)| p == global)
                .map(|(_, s)| s.clone())
        }) {
            return Ok(s);
        }
        let gc = pakrat_iostore::Container::open(global, &self.keys()).map_err(damaged)?;
        let stored: u64 = gc.toc().offsets.iter().map(|o| o.length).sum();
        let _held = self
            .budget
            .reserve((1 << 20) + 4 * stored, "reading the global container")?;
        let s = Arc::new(
            pakrat_asset::zen::load_script_objects(&gc)
                .map_err(|e| damaged(self.shown(&e.to_string())))?,
        );
        if let Ok(mut c) = self.ue.lock() {
            c.globals.push_back((global.to_path_buf(), s.clone()));
            if c.globals.len() > KEPT {
                c.globals.pop_front();
            }
        }
        Ok(s)
    }

    /// The mappings for packages of `file`: `--usmap` when given; else the
    /// nearest folder, from `file`'s own up to the opened folder, that
    /// holds `.usmap` files directly or in a `Mappings/` subfolder, and of
    /// those the first by name. `Ok(None)` when there are none; `Err` with
    /// the reader's message when the chosen file does not read.
    pub(crate) fn mappings_for(&self, file: &Path) -> Mappings {
        let (path, label) = match &self.usmap {
            Some(p) => (p.clone(), format!("{} (--usmap)", p.display())),
            None => match self.find_usmap(file) {
                Some(p) => {
                    let l = self.rel_of(&p);
                    (p, l)
                }
                None => return Ok(None),
            },
        };
        if let Some(m) = self.ue.lock().ok().and_then(|c| {
            c.usmaps
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, m)| m.clone())
        }) {
            return Ok(Some((label, m)));
        }
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        let _held = self
            .budget
            .reserve((1 << 20) + 32 * size, "reading the mappings")
            .map_err(|e| e.1)?;
        let m = Arc::new(Usmap::open(&path).map_err(|e| self.shown(&e.to_string()))?);
        if let Ok(mut c) = self.ue.lock() {
            c.usmaps.push_back((path, m.clone()));
            if c.usmaps.len() > KEPT {
                c.usmaps.pop_front();
            }
        }
        Ok(Some((label, m)))
    }

    fn find_usmap(&self, file: &Path) -> Option<PathBuf> {
        let usmaps_in = |d: &Path| -> Vec<PathBuf> {
            let Ok(rd) = std::fs::read_dir(d) else {
                return Vec::new();
            };
            let mut v: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .is_some_and(|x| x.eq_ignore_ascii_case("usmap"))
                        && p.is_file()
                })
                .filter(|p| std::fs::canonicalize(p).is_ok_and(|r| r.starts_with(&self.root)))
                .collect();
            v.sort();
            v
        };
        file.ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(&self.root))
            .find_map(|d| {
                let mut v = usmaps_in(d);
                v.extend(usmaps_in(&d.join("Mappings")));
                v.into_iter().next()
            })
    }
}
