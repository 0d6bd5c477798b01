//! `pakrat iostore repack|create|patch`: argument handling and printing
//! around `pakrat_iostore::write` and `pakrat_asset::build`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pakrat_codec::compress::{Method, ZlibEncoder};
use pakrat_codec::KeyRing;
use pakrat_io::fsutil::OutputDir;
use pakrat_io::staged::Staging;
use pakrat_iostore::container::partition_path;
use pakrat_iostore::engine::{self, ContainerFormat};
use pakrat_iostore::write::{self, ChunkSpec, Options, Written};
use pakrat_iostore::Container;
use pakrat_pak::Cipher;
use serde_json::json;

use pakrat_io::text::show;

use crate::args::*;
use crate::cmd::common::{keyring, open_container, open_pak, progress};
use crate::output::{human_size, print_json};

/// Parse `--compress`.
pub fn method(name: &str) -> Result<Method> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "none" => Method::None,
        "zlib" => Method::Zlib,
        "gzip" => Method::Gzip,
        "lz4" => Method::Lz4,
        "zstd" => Method::Zstd,
        "oodle" => bail!("--compress oodle: Oodle cannot be encoded without Epic's closed Oodle library (pakrat only decodes it); use zlib, gzip, lz4 or zstd"),
        m => bail!("--compress {m:?}: expected none, zlib, gzip, lz4 or zstd"),
    })
}

fn parse_guid(g: &str) -> Result<pakrat_io::Guid> {
    let clean: String = g
        .chars()
        .filter(|c| !matches!(c, '-' | '{' | '}'))
        .collect();
    pakrat_io::Guid::parse(&clean)
        .with_context(|| format!("--key-guid {g:?}: expected 32 hex digits"))
}

/// Apply the encoding arguments to `o` (which holds the defaults: the
/// source's settings for repack).
fn apply(e: &IostoreEncodeArgs, ring: &KeyRing, o: &mut Options) -> Result<()> {
    if let Some(m) = &e.compress {
        o.compression = method(m)?;
    }
    if o.compression == Method::Oodle {
        bail!("the source is Oodle-compressed, which pakrat can read but not write: pick --compress none, zlib, gzip, lz4 or zstd");
    }
    o.level = e.level;
    o.zlib = if e.match_unrealpak {
        ZlibEncoder::UnrealPak
    } else {
        ZlibEncoder::Fast
    };
    if let Some(v) = e.version {
        o.version = v;
    }
    if e.partition_size.is_some() {
        o.partition_size = e.partition_size;
    }
    if e.no_encrypt {
        o.key = None;
        o.key_guid = pakrat_io::Guid::default();
    }
    if e.encrypt || e.key_guid.is_some() {
        let guid = match &e.key_guid {
            Some(g) => parse_guid(g)?,
            None => pakrat_io::Guid::default(),
        };
        let key = ring
            .for_guid(guid)
            .or_else(|| {
                if e.key_guid.is_none() {
                    ring.candidates(guid).first().copied()
                } else {
                    None
                }
            })
            .with_context(|| {
                format!("--encrypt needs a key (--aes-key, or --keys with a key for GUID {guid})")
            })?;
        o.key = Some(key);
        o.key_guid = guid;
    }
    match e.cipher.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("ecb") => o.cipher = Cipher::Ecb,
        Some("ctr") => o.cipher = Cipher::Ctr,
        Some(c) => bail!("--cipher {c:?}: expected ecb or ctr"),
        None => {
            // Keep the source's; a version change decides otherwise.
            if o.version >= 10 && o.key.is_some() && e.version.is_some() {
                o.cipher = Cipher::Ctr;
            }
            if o.version < 10 {
                o.cipher = Cipher::Ecb;
            }
        }
    }
    write::check(o)?;
    Ok(())
}

/// The file stem of a `.utoc` path (the container's name).
pub fn stem(p: &Path) -> Result<String> {
    let ok = p
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("utoc"));
    if !ok {
        bail!("{}: the output must be a .utoc file name", p.display());
    }
    Ok(p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default())
}

/// Fills one extra output file.
pub type Fill = Box<dyn FnOnce(&std::fs::File) -> Result<()>>;

/// Extra files written with the container (the companion pak).
pub struct Extra {
    /// File name beside the .utoc.
    pub name: String,
    /// Fills the (empty) file.
    pub fill: Fill,
}

/// Write the container to `output` and its partitions beside it, all
/// staged and renamed into place together (nothing appears on failure).
pub fn write_out(
    output: &Path,
    force: bool,
    specs: &[ChunkSpec],
    from: Option<&Container>,
    o: &Options,
    quiet: bool,
    extra: Vec<Extra>,
) -> Result<(Written, Vec<PathBuf>)> {
    let total: u64 = specs.iter().map(|s| s.size).sum();
    write_out_with(
        output,
        force,
        Some(total),
        quiet,
        extra,
        &mut |open, progress| write::write(specs, from, o, open, progress),
    )
}

/// Opens a partition of the container being written.
pub type OpenPart<'a> = dyn FnMut(u32) -> pakrat_io::Result<std::fs::File> + 'a;

/// Writes the container's partitions (given the opener and the progress
/// callback), as [`write::write`] does.
pub type RunWrite<'a> =
    dyn FnMut(&mut OpenPart<'_>, &(dyn Fn(u64) + Sync)) -> pakrat_io::Result<Written> + 'a;

/// [`write_out`] with the writing done by `run` (given the partition
/// opener and the progress callback); `total` bytes for the progress bar,
/// when known.
pub fn write_out_with(
    output: &Path,
    force: bool,
    total: Option<u64>,
    quiet: bool,
    extra: Vec<Extra>,
    run: &mut RunWrite<'_>,
) -> Result<(Written, Vec<PathBuf>)> {
    let name = stem(output)?;
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let out = OutputDir::create(&dir, force)?;
    let staging = Staging::new(&out);
    let mut staged = Vec::new();
    let bar = progress(total.unwrap_or(0), quiet || total.is_none(), "writing");
    let res = (|| -> Result<Written> {
        let utoc_name = format!("{name}.utoc");
        let mut open_part = |p: u32| -> pakrat_io::Result<std::fs::File> {
            let n = partition_path(Path::new(&utoc_name), p);
            let (s, f) = staging.stage_file(&n.to_string_lossy())?;
            staged.push(s);
            Ok(f)
        };
        let w = run(&mut open_part, &|n| {
            if let Some(pb) = &bar {
                pb.inc(n);
            }
        })?;
        let utoc = w.utoc.clone();
        staged.push(staging.stage(&utoc_name, |mut f| std::io::Write::write_all(&mut f, &utoc))?);
        for x in extra {
            let (s, f) = staging.stage_file(&x.name)?;
            staged.push(s);
            (x.fill)(&f)?;
        }
        Ok(w)
    })();
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    match res {
        Ok(w) => {
            let paths = staging.commit(staged)?;
            // Partitions a previous, bigger build left behind would look
            // like part of this one.
            let mut p = w.toc.header.partition_count.max(1);
            loop {
                let stale = partition_path(output, p);
                if std::fs::symlink_metadata(&stale).is_err() {
                    break;
                }
                std::fs::remove_file(&stale)
                    .with_context(|| format!("removing the stale partition {}", stale.display()))?;
                p += 1;
            }
            Ok((w, paths))
        }
        Err(e) => {
            staging.abort(staged);
            Err(e)
        }
    }
}

fn report(
    json_out: bool,
    what: &str,
    output: &Path,
    w: &Written,
    paths: &[PathBuf],
    secs: f64,
) -> Result<()> {
    let h = &w.toc.header;
    if json_out {
        print_json(&json!({
            "output": output.display().to_string(),
            "files": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "version": h.version,
            "chunks": w.toc.len(),
            "blocks": w.toc.blocks.len(),
            "partitions": h.partition_count,
            "methods": w.toc.method_names,
            "encrypted": h.has(pakrat_iostore::toc::flags::ENCRYPTED),
            "input_bytes": w.input_bytes,
            "ucas_bytes": w.ucas_bytes,
            "stored_blocks": w.stored_blocks,
            "perfect_hash_seeds": w.toc.perfect_hash_seeds.len(),
            "overflow": w.toc.chunks_without_perfect_hash.len(),
            "seconds": secs,
        }))?;
    } else {
        println!(
            "{what} {}: TOC v{}, {} chunks, {} blocks{}{}, {} → {} in {secs:.2}s",
            output.display(),
            h.version,
            w.toc.len(),
            w.toc.blocks.len(),
            match w.toc.method_names.first() {
                Some(m) => format!(", {m}"),
                None => String::new(),
            },
            if h.partition_count > 1 {
                format!(", {} partitions", h.partition_count)
            } else {
                String::new()
            },
            human_size(w.input_bytes),
            human_size(w.ucas_bytes),
        );
        for p in paths {
            println!("  {}", p.display());
        }
    }
    Ok(())
}

/// `iostore repack`.
pub fn repack(a: &IostoreRepackArgs) -> Result<ExitCode> {
    let c = open_container(&a.input, &a.keys)?;
    if !c.has_data() {
        bail!(
            "{}: the .ucas is missing; only a complete container can be repacked",
            a.input.display()
        );
    }
    let ring = keyring(&a.keys)?;
    // The container keeps its id under any output name: its container
    // header chunk carries the same id.
    let mut o = write::options_of(&c);
    apply(&a.enc, &ring, &mut o)?;
    // Readers take chunk types by UE4 numbers below TOC v5 and by UE5
    // numbers from v5 on (retoc; the engine and CUE4Parse by release):
    // repacked across that line, every package chunk reads as another type
    // and the container as one with no packages.
    let from = c.toc().header.version;
    if from != o.version {
        let ue5 = is_ue5(&c)?;
        if ue5 && o.version < 5 {
            bail!(
                "--version {}: {} holds UE5 content (TOC v{from}); below TOC v5 readers take its chunk types by UE4 numbers and find no packages. Keep --version 5 or more (5.0-5.3: 5, 5.4: 6, 5.5-5.8: 8, 6.0: 10)",
                o.version,
                a.input.display()
            );
        }
        if !ue5 && o.version >= 5 {
            bail!(
                "--version {}: {} holds UE4 content (TOC v{from}); from TOC v5 on readers take its chunk types by UE5 numbers and find no packages. Keep --version 3 or 4",
                o.version,
                a.input.display()
            );
        }
    }
    let specs = write::chunks_of(&c);
    let start = std::time::Instant::now();
    let (w, paths) = write_out(
        &a.output,
        a.enc.force,
        &specs,
        Some(&c),
        &o,
        a.out.json,
        Vec::new(),
    )?;
    report(
        a.out.json,
        "repacked into",
        &a.output,
        &w,
        &paths,
        start.elapsed().as_secs_f64(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The container header of `c`, parsed, if it has one.
fn header_of(c: &Container) -> Result<Option<pakrat_iostore::container_header::ContainerHeader>> {
    match c.find_by_type(pakrat_iostore::ChunkType::ContainerHeader) {
        Some(i) => Ok(Some(
            pakrat_iostore::container_header::parse(&c.read_chunk(i)?)
                .with_context(|| format!("{}: its container header", c.path().display()))?,
        )),
        None => Ok(None),
    }
}

/// `--mount` as a folder (ending in `/`).
fn mount_dir(m: &str) -> String {
    if m.ends_with('/') {
        m.to_string()
    } else {
        format!("{m}/")
    }
}

/// `--ue-version X.Y` as a container format; a release not in the table is
/// an error.
fn engine_format(v: Option<&str>) -> Result<Option<&'static ContainerFormat>> {
    match v {
        None => Ok(None),
        Some(s) => match engine::format_for(s) {
            Some(f) => Ok(Some(f)),
            None => bail!(
                "--ue-version {s:?}: no IoStore container format known for it (pakrat writes those of {})",
                engine::known()
            ),
        },
    }
}

/// The companion pak version of a base container: its own `.pak`'s, else
/// the release its TOC and header versions name, if only one does.
fn base_pak_version(
    b: &Container,
    header: Option<&pakrat_iostore::container_header::ContainerHeader>,
    keys: &KeyArgs,
) -> Option<u32> {
    let pak = b.path().with_extension("pak");
    if pak.is_file() {
        if let Ok(p) = open_pak(&pak, keys) {
            return Some(p.footer.version);
        }
    }
    let rel = engine::releases_of(b.toc().header.version, header?.form);
    let first = rel.first()?;
    rel.iter()
        .all(|x| x.pak_version == first.pak_version)
        .then_some(first.pak_version)
}

/// A container is UE5 content when its container header has the UE5 form
/// (else, without one, when its TOC version is 5 or more): its chunk types
/// use UE5 numbers.
fn is_ue5(c: &Container) -> Result<bool> {
    Ok(match header_of(c)? {
        Some(h) => matches!(h.form, pakrat_iostore::container_header::HeaderForm::Ue5(_)),
        None => c.toc().header.version >= 5,
    })
}

/// The companion pak version for a TOC version (UE 6.0 → 15, else 11).
fn pak_version_for(toc: u8) -> u32 {
    if toc >= 10 {
        15
    } else {
        11
    }
}

/// The companion `.pak` (UE mounts a container only beside a pak of the
/// same name; mods ship it even when empty).
fn companion_pak(
    name: &str,
    files: Vec<pakrat_io::walk::SourceFile>,
    version: u32,
    key: Option<pakrat_codec::AesKey>,
    key_guid: pakrat_io::Guid,
) -> Result<Extra> {
    use pakrat_pak::write as pw;
    if let Some(f) = files.iter().find(|f| f.bytes.is_some()) {
        bail!(
            "{}: made in memory; only files on disk go into the companion pak",
            f.rel
        );
    }
    let o = pw::Options {
        version,
        mount_point: "../../../".into(),
        encrypt: key.is_some(),
        encrypt_index: key.is_some(),
        key,
        key_guid,
        ..pw::Options::default()
    };
    pw::check(&o)?;
    let pak_name = format!("{name}.pak");
    let file_name = pak_name.clone();
    Ok(Extra {
        name: pak_name,
        fill: Box::new(move |f| {
            let inputs: Vec<pw::Input> = files
                .into_iter()
                .map(|s| pw::Input {
                    path: s.rel,
                    source: s.path,
                })
                .collect();
            pw::write(&inputs, &o, f, &file_name)?;
            Ok(())
        }),
    })
}

/// `iostore create`.
pub fn create(a: &IostoreCreateArgs) -> Result<ExitCode> {
    let files = pakrat_io::walk::walk(&a.src)?;
    // Legacy packages (the tag, then a negative legacy file version) are
    // not zen packages: say which command takes them.
    let legacy = files.iter().find(|f| {
        let ext = f.rel.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        let mut head = [0u8; 8];
        matches!(ext.as_str(), "uasset" | "umap")
            && std::fs::File::open(&f.path)
                .and_then(|mut h| std::io::Read::read_exact(&mut h, &mut head))
                .is_ok()
            && pakrat_asset::legacy::is_legacy_package(&head)
    });
    if let Some(f) = legacy {
        bail!(
            "{}: holds legacy UE4/UE5 packages ({} is one), and `iostore create` packs zen packages; `pakrat zen from-legacy {} --into {}` converts the folder and packs it in one step",
            a.src.display(),
            f.rel,
            a.src.display(),
            a.output.display()
        );
    }
    create_from(a, files, Vec::new())
}

/// A UE4 container header chunk in the folder (`zen from-legacy -o` of UE
/// 4.27 packages writes one) when nothing names the version: the chunk
/// types are numbered the UE4 way, so the TOC is UE 4.27's (v3). Returns
/// the companion pak version that goes with it.
fn ue4_folder_version(
    header: Option<&pakrat_iostore::container_header::ContainerHeader>,
    o: &mut Options,
    json: bool,
) -> Option<u32> {
    let h = header.filter(|h| h.form.ue5_version().is_none())?;
    if o.version < 5 {
        return None;
    }
    let f = engine::format_for("4.27")?;
    o.version = f.toc_version;
    if !json {
        eprintln!(
            "pakrat: note: the folder's container header has the {} form: written as UE 4.27's TOC v{}",
            h.form.describe(),
            o.version
        );
    }
    Some(f.pak_version)
}

/// What `iostore create` settles before it plans: the container's name,
/// options and format, the base container and the plan settings.
pub struct CreateSetup {
    name: String,
    o: Options,
    base: Option<Container>,
    engine: Option<&'static ContainerFormat>,
    pak_version: Option<u32>,
    /// Settings for the plan of the folder.
    pub plan: pakrat_asset::build::PlanOptions,
}

/// The settings of `iostore create` (also `zen from-legacy --into`).
pub fn create_setup(a: &IostoreCreateArgs) -> Result<CreateSetup> {
    let name = stem(&a.output)?;
    let ring = keyring(&a.keys)?;
    let base = match &a.base {
        Some(b) => Some(open_container(b, &a.keys)?),
        None => None,
    };
    let mut o = Options {
        container_id: pakrat_codec::names::container_id(&name),
        ..Options::default()
    };
    let engine = engine_format(a.ue_version.as_deref())?;
    let (reference, order) = match &base {
        Some(b) => (
            header_of(b)?,
            write::chunks_of(b).into_iter().map(|c| c.id).collect(),
        ),
        None => (None, Vec::new()),
    };
    // The container's format: the base's layout, else the release's, else
    // the defaults (TOC v8, header v5, pak v11).
    let mut pak_version = None;
    if let Some(b) = &base {
        o.version = b.toc().header.version;
        pak_version = base_pak_version(b, reference.as_ref(), &a.keys);
        if let Some(f) = engine {
            let form = reference.as_ref().map(|r| r.form);
            if o.version != f.toc_version || form.is_some_and(|h| h != f.header) {
                eprintln!(
                    "pakrat: warning: --base {} has TOC v{}{}, not UE {}'s TOC v{} / header {}; the base's layout is written",
                    show(&b.path().display().to_string()),
                    o.version,
                    form.map(|h| format!(" / header {}", h.describe())).unwrap_or_default(),
                    f.engine,
                    f.toc_version,
                    f.header.describe()
                );
            }
        }
    } else if let Some(f) = engine {
        if let Some(v) = a.enc.version.filter(|v| *v != f.toc_version) {
            bail!(
                "--version {v} contradicts --ue-version {}: UE {} writes TOC v{} (container header {}, pak v{}); give one of them",
                f.engine,
                f.engine,
                f.toc_version,
                f.header.describe(),
                f.pak_version
            );
        }
        o.version = f.toc_version;
        pak_version = Some(f.pak_version);
    }
    if let (Some(f), Some(p)) = (engine, a.pak_version) {
        if p != f.pak_version {
            eprintln!(
                "pakrat: warning: --pak-version {p}: UE {} writes pak v{}; the companion pak is written as v{p}",
                f.engine, f.pak_version
            );
        }
    }
    apply(&a.enc, &ring, &mut o)?;
    let plan = pakrat_asset::build::PlanOptions {
        mount: mount_dir(&a.mount),
        container_id: o.container_id,
        toc_version: o.version,
        form: if base.is_none() {
            engine.map(|f| f.header)
        } else {
            None
        },
        reference,
        order,
    };
    Ok(CreateSetup {
        name,
        o,
        base,
        engine,
        pak_version,
        plan,
    })
}

/// `iostore create` over a listing of `a.src` (which may hold files made
/// in memory, as `zen from-legacy --into` does, with the names and store
/// entries of those packages in `known`, one per file or none).
pub fn create_from(
    a: &IostoreCreateArgs,
    files: Vec<pakrat_io::walk::SourceFile>,
    known: Vec<Option<pakrat_asset::build::Known>>,
) -> Result<ExitCode> {
    let CreateSetup {
        name,
        mut o,
        base,
        engine,
        mut pak_version,
        plan,
    } = create_setup(a)?;
    if files.is_empty() {
        bail!("{}: no files; nothing was written", a.src.display());
    }
    let plan = pakrat_asset::build::plan_known(&files, known, &plan)?;
    if plan.chunks.is_empty() {
        bail!(
            "{}: no packages or chunks, only other files ({}); a container needs zen packages (.uasset/.umap) or _chunks files. Use `pakrat pak create` for a plain pak",
            a.src.display(),
            plan.pak_files.len()
        );
    }
    // A `_chunks/….ContainerHeader` in the folder is the reference when
    // there is no base: its form wins over the release's.
    if let (None, Some(f), Some(h)) = (&base, engine, &plan.header) {
        if h.form != f.header {
            eprintln!(
                "pakrat: warning: the folder's container header chunk has header {}, not UE {}'s {}; its form is written",
                h.form.describe(),
                f.engine,
                f.header.describe()
            );
        }
    }
    if base.is_none() && engine.is_none() && a.enc.version.is_none() {
        if let Some(p) = ue4_folder_version(plan.header.as_ref(), &mut o, a.out.json) {
            pak_version = Some(p);
        }
    }
    let pak_files = plan.pak_files.len();
    let pak = companion_pak(
        &name,
        plan.pak_files,
        a.pak_version
            .or(pak_version)
            .unwrap_or_else(|| pak_version_for(o.version)),
        o.key,
        o.key_guid,
    )?;
    let start = std::time::Instant::now();
    let (w, paths) = write_out(
        &a.output,
        a.enc.force,
        &plan.chunks,
        None,
        &o,
        a.out.json,
        vec![pak],
    )?;
    let secs = start.elapsed().as_secs_f64();
    if !a.out.json {
        println!(
            "{} packages, {} chunks; {pak_files} other file(s) in the companion pak",
            plan.packages,
            plan.chunks.len()
        );
    }
    report(a.out.json, "created", &a.output, &w, &paths, secs)?;
    Ok(ExitCode::SUCCESS)
}

/// `iostore create` of chunks made while the ones before them are written
/// (`zen from-legacy --into`): `next` hands them over in layout order (the
/// container header last), made with `c.plan`'s settings
/// ([`pakrat_asset::build::StreamPlan`]); `pak_files` go into the
/// companion pak and `packages` is the count to report. An error from
/// `next` writes nothing.
pub fn create_streamed(
    a: &IostoreCreateArgs,
    c: CreateSetup,
    pak_files: Vec<pakrat_io::walk::SourceFile>,
    packages: usize,
    next: &mut write::NextChunks<'_>,
) -> Result<ExitCode> {
    let n_pak = pak_files.len();
    let pak = companion_pak(
        &c.name,
        pak_files,
        a.pak_version
            .or(c.pak_version)
            .unwrap_or_else(|| pak_version_for(c.o.version)),
        c.o.key,
        c.o.key_guid,
    )?;
    let start = std::time::Instant::now();
    let mut chunks = 0;
    let (w, paths) = write_out_with(
        &a.output,
        a.enc.force,
        None,
        a.out.json,
        vec![pak],
        &mut |open, progress| {
            let (w, written) = write::write_stream(next, &c.o, open, progress)?;
            chunks = written.len();
            Ok(w)
        },
    )?;
    let secs = start.elapsed().as_secs_f64();
    if !a.out.json {
        println!(
            "{packages} packages, {chunks} chunks; {n_pak} other file(s) in the companion pak"
        );
    }
    report(a.out.json, "created", &a.output, &w, &paths, secs)?;
    Ok(ExitCode::SUCCESS)
}

/// `iostore patch`.
pub fn patch(a: &IostorePatchArgs) -> Result<ExitCode> {
    let start = std::time::Instant::now();
    let d = write_patch(a, false)?;
    let secs = start.elapsed().as_secs_f64();
    if !a.out.json {
        println!(
            "{} changed or new chunk(s) ({} package(s)), {} unchanged left out; {} loose file(s) in the companion pak",
            d.chunks, d.packages, d.unchanged, d.pak_files
        );
    }
    report(a.out.json, "patch", &a.output, &d.written, &d.paths, secs)?;
    Ok(ExitCode::SUCCESS)
}

/// What [`write_patch`] wrote.
pub struct PatchDone {
    /// The container written.
    pub written: Written,
    /// Its files.
    pub paths: Vec<PathBuf>,
    /// Chunks in it (the container header too).
    pub chunks: usize,
    /// Packages in it.
    pub packages: usize,
    /// Chunks of the folder equal to the base's, left out.
    pub unchanged: usize,
    /// Loose files in the companion pak.
    pub pak_files: usize,
}

/// Write the patch container `a` asks for. `keep_unchanged`: keep the
/// folder's chunks that equal the base's too (`props apply` writes the
/// package it was given, changed or not).
pub fn write_patch(a: &IostorePatchArgs, keep_unchanged: bool) -> Result<PatchDone> {
    use pakrat_asset::build;
    if !a.remove.is_empty() {
        bail!(
            "--remove: an IoStore container has no delete record, so a patch cannot take chunks away from its base ({}); rebuild the base without them (pakrat iostore create, or repack from an extracted folder)",
            a.remove.join(" ")
        );
    }
    let Some(add) = &a.add else {
        bail!("nothing to patch: give --add DIR with the new and changed files");
    };
    let base = open_container(&a.base, &a.keys)?;
    if !base.has_data() {
        bail!(
            "{}: the .ucas is missing; a patch compares against the base's chunks",
            a.base.display()
        );
    }
    let name = stem(&a.output)?;
    let ring = keyring(&a.keys)?;
    let mut o = write::options_of(&base);
    o.container_id = pakrat_codec::names::container_id(&name);
    o.mount_point = None;
    o.partition_size = None;
    if o.compression == Method::Oodle && a.enc.compress.is_none() {
        o.compression = Method::None;
    }
    apply(&a.enc, &ring, &mut o)?;
    let reference = header_of(&base)?;
    let mount = mount_dir(&a.mount);
    let files = pakrat_io::walk::walk(add)?;
    let mut plan = build::plan(
        &files,
        &build::PlanOptions {
            mount,
            container_id: o.container_id,
            toc_version: o.version,
            form: None,
            reference,
            order: Vec::new(),
        },
    )?;
    // Keep what the base does not have, or has with other bytes.
    let mut unchanged = 0usize;
    let mut err = None;
    plan.retain(|c| {
        if keep_unchanged {
            return true;
        }
        let Some(j) = base.find_chunk(&c.id) else {
            return true;
        };
        if base.toc().offsets[j].length != c.size {
            return true;
        }
        let same = match &c.data {
            write::Data::File(p) => match (pakrat_io::read_regular(p), base.read_chunk(j)) {
                (Ok(new), Ok(old)) => new == old,
                (Err(e), _) => {
                    err.get_or_insert_with(|| e.to_string());
                    false
                }
                (_, Err(e)) => {
                    err.get_or_insert_with(|| format!("{}: chunk {}: {e}", a.base.display(), c.id));
                    false
                }
            },
            _ => false,
        };
        if same {
            unchanged += 1;
        }
        !same
    })?;
    if let Some(e) = err {
        bail!("{e}");
    }
    // Loose files: those the base's companion pak lacks or holds otherwise.
    let base_pak = a.base.with_extension("pak");
    let mut pak_files = plan.pak_files.clone();
    if base_pak.is_file() && !pak_files.is_empty() {
        let p = open_pak(&base_pak, &a.keys)?;
        let mount = p.index.mount_point.clone();
        pak_files.retain(|f| {
            let full = format!("{}{}", mount_dir(&a.mount), f.rel);
            let inner = full.strip_prefix(mount.as_str()).unwrap_or(&full);
            match p
                .index
                .entries
                .iter()
                .find(|e| !e.deleted() && e.path == inner)
            {
                Some(e) => match (p.read(e), pakrat_io::read_regular(&f.path)) {
                    (Ok(old), Ok(new)) => old != new,
                    _ => true,
                },
                None => true,
            }
        });
    }
    if plan.chunks.is_empty() && pak_files.is_empty() {
        bail!(
            "{}: every file is the same as in {} ({unchanged} unchanged); no patch was written",
            add.display(),
            a.base.display()
        );
    }
    if plan.chunks.is_empty() {
        bail!(
            "only loose files differ ({}); they belong in a patch .pak: use pakrat pak create",
            pak_files.len()
        );
    }
    let pak_count = pak_files.len();
    let pak = companion_pak(
        &name,
        pak_files,
        pak_version_for(o.version),
        o.key,
        o.key_guid,
    )?;
    let (w, paths) = write_out(
        &a.output,
        a.enc.force,
        &plan.chunks,
        None,
        &o,
        a.out.json,
        vec![pak],
    )?;
    Ok(PatchDone {
        written: w,
        paths,
        chunks: plan.chunks.len(),
        packages: plan.packages,
        unchanged,
        pak_files: pak_count,
    })
}
