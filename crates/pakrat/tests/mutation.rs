//! Deterministic mutation test (issue 6): every corpus file, a fixed-seed
//! set of truncations, bit flips, byte runs and u32 length-field overwrites
//! (`pakrat_testkit::mutate`), each opened with every library call the
//! commands use for that kind of file (packages in paks and containers:
//! their textures exported as `pakrat export` does, into memory). Each
//! case must end in `Ok` or a clear error: no panic, no hang (per-case
//! time limit), no allocation over budget.
//!
//! Budget (documented in docs/hostile.md): peak live heap during a case
//! ≤ 64 MiB + 16 × the case's input bytes (for IoStore: `.utoc` plus its
//! `.ucas` files), plus 4 × the output cap handed to the `.uz` decoders
//! (32 MiB) for decompression cases. A single request above 1 GiB is
//! refused by the counting allocator: a reader that uses `try_reserve`
//! turns that into an error, one that does not aborts the test, after
//! `CountingAlloc` printed the case it was running.
//!
//! Cost: about `PAKRAT_MUTATIONS` (default 1) × 4–24 cases per file,
//! fewer for big files; a few minutes on 2 cores in the test profile.
//! The summary line gives cases, ok and errors per kind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pakrat_testkit::mutate::{
    mutations, overlap_mutations, run_case, set_label, CountingAlloc, Failure, Mutation,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const SEED: u64 = 0x5EED_0006;
const BASE_BUDGET: usize = 64 << 20;
const PER_INPUT_BYTE: usize = 16;
const UZ_OUTPUT_CAP: usize = 32 << 20;
const SINGLE_REQUEST_LIMIT: usize = 1 << 30;
const CASE_LIMIT: Duration = Duration::from_secs(20);
const FIXTURE_KEY: &str = "435545345061727365466978747572654145534b657930313233343536373839";

/// How many mutations a file of `len` bytes gets: small files many, big
/// files few (their cases cost more), times `PAKRAT_MUTATIONS`.
fn count_for(len: u64) -> usize {
    let scale: usize = std::env::var("PAKRAT_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let base = match len {
        0..=65_536 => 24,
        65_537..=524_288 => 12,
        524_289..=2_097_152 => 6,
        _ => 4,
    };
    base * scale.max(1)
}

fn err_text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// UMOD: parse, problems, verify, manifest, and extraction (CRC ignored so
/// that flipped bytes reach the writer) into a fresh folder, which must
/// then hold every written file and nothing outside it.
fn umod_case(data: &[u8]) -> Result<(), String> {
    let u = pakrat_umod::Umod::parse(data).map_err(err_text)?;
    for p in u.problems() {
        let _ = p.to_string();
    }
    let v = u.verify();
    let _ = v.ok();
    if let Ok(Some(m)) = pakrat_umod::Manifest::from_umod(&u) {
        let _ = m.check_against(&u);
        for r in m.records() {
            let _ = r.install_dest();
        }
    }
    let parent = tempfile::tempdir().map_err(err_text)?;
    let root = parent.path().join("out");
    let out = pakrat_io::fsutil::OutputDir::create(&root, false).map_err(err_text)?;
    let opts = pakrat_umod::ExtractOptions {
        globs: Vec::new(),
        ignore_crc: true,
    };
    let r = pakrat_umod::extract(&u, &out, &opts);
    let names: Vec<_> = std::fs::read_dir(parent.path())
        .map_err(err_text)?
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("out")],
        "wrote beside the output folder"
    );
    if let Ok(rep) = &r {
        for f in &rep.files {
            assert!(
                f.path.starts_with(out.root()),
                "{} escapes",
                f.path.display()
            );
        }
    }
    r.map(|_| ()).map_err(err_text)
}

/// Package: strict and lenient tables, every path, every object's
/// properties (and their `props --json`), every exporter into memory; then the system crate's header
/// readers on the same bytes written to a file.
fn package_case(data: &[u8]) -> Result<(), String> {
    use pakrat_classic::export::{export_files, ExportOptions};
    // Encrypted Lineage II packages: decrypted first, as the CLI reads them.
    let decrypted = pakrat_classic::lineage::decrypt(data).map_err(err_text)?;
    let data = decrypted.as_ref().map_or(data, |d| &d.body[..]);
    let strict = pakrat_classic::Package::parse(data).map(|_| ());
    let pkg = pakrat_classic::Package::parse_lenient(data).map_err(err_text)?;
    writer_round_trip(&pkg);
    let _ = pkg.problems();
    let _ = pkg.imported_packages();
    let opts = ExportOptions {
        kinds: Vec::new(),
        all_mips: true,
        mesh: Some(pakrat_mesh::export::hook),
        mesh_gltf: false,
        mesh_psk: false,
        mesh_all_lods: false,
        mesh_3d: false,
        decompile: None,
        package: "Case".into(),
    };
    // `export --decompile`: the classes decompiled with the package's own
    // natives (errors are fine, panics are not).
    let mut natives = pakrat_classic::script::natives::NativeTable::new();
    natives.add(&pkg);
    let decompile = ExportOptions {
        decompile: Some(std::sync::Arc::new(natives)),
        ..opts.clone()
    };
    let mut first_err = None;
    let js = pakrat_classic::json::PropsJson::new(&pkg, "Case");
    for i in 0..pkg.exports.len() {
        let _ = pkg.export_path(i);
        let _ = pkg.export_class_name(i);
        match pakrat_classic::props::read_object(&pkg, i) {
            // The JSON of `props --json` (byte enums looked up in the
            // class definitions, references as full paths).
            Ok(o) => drop(js.export(i, Ok(&o))),
            Err(e) => {
                first_err.get_or_insert(e.to_string());
            }
        }
        if let Err(e) = export_files(&pkg, i, &opts) {
            first_err.get_or_insert(e.to_string());
        }
        if pkg.exports[i].class.is_none() {
            let _ = export_files(&pkg, i, &decompile);
        }
    }
    let dir = tempfile::tempdir().map_err(err_text)?;
    let file = dir.path().join("Case.u");
    std::fs::write(&file, data).map_err(err_text)?;
    let _ = pakrat_system::flags::read_flags(&file);
    let _ = pakrat_system::deps::read_imports(&file);
    strict.map_err(err_text)?;
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The package writer on a (possibly damaged) package: unchanged, the
/// written file reads back as the same tables, or the writer refuses with an
/// error; never a panic.
fn writer_round_trip(pkg: &pakrat_classic::Package<'_>) {
    let Ok(out) = pakrat_classic::write::Rewrite::new(pkg).to_bytes() else {
        return;
    };
    let q = pakrat_classic::Package::parse_lenient(&out).expect("a written package reads back");
    let strip = |p: &pakrat_classic::Package<'_>| {
        let i: Vec<_> = p
            .imports
            .iter()
            .map(|i| (i.class_package, i.class_name, i.outer, i.object_name))
            .collect();
        let e: Vec<_> = p
            .exports
            .iter()
            .map(|e| {
                (
                    e.class,
                    e.super_,
                    e.outer,
                    e.object_name,
                    e.flags,
                    e.serial_size,
                    e.serial_offset,
                )
            })
            .collect();
        format!(
            "{:?} {:?} {:?} {i:?} {e:?}",
            p.names, p.summary.guid, p.summary.generations
        )
    };
    assert_eq!(strip(pkg), strip(&q), "writer changed the tables");
}

/// Redirect files: detection, headers, in-memory and streaming decode.
fn uz_case(data: &[u8]) -> Result<(), String> {
    let limits = pakrat_uz::Limits {
        max_output: UZ_OUTPUT_CAP,
    };
    let _ = pakrat_uz::candidates(data);
    let _ = pakrat_uz::inspect(data);
    let _ = pakrat_uz::decompress_to(data, &mut std::io::sink(), &limits);
    let d = pakrat_uz::decompress_with(data, &limits).map_err(err_text)?;
    if let Some(n) = d.original_name() {
        let _ = pakrat_uz::safe_file_name(n);
    }
    Ok(())
}

/// `.usmap` mappings: detection, then the whole reader (decompression into
/// the stated size, names, enums, structs, type trees), then every lookup.
fn usmap_case(data: &[u8]) -> Result<(), String> {
    use pakrat_asset::props::Schemas;
    let _ = pakrat_asset::usmap::expected_file_size(data);
    let u = pakrat_asset::usmap::Usmap::parse(data).map_err(err_text)?;
    let s: &dyn Schemas = &u;
    for st in &u.structs {
        assert!(s.find_struct(&st.name).is_some(), "struct {} lost", st.name);
    }
    for e in &u.enums {
        assert!(s.find_enum(&e.name).is_some(), "enum {} lost", e.name);
    }
    Ok(())
}

/// Shader library, either form: parse, write back byte for byte, plan the
/// IoStore groups of the pak form, size the shaders of the IoStore form.
fn shader_library_case(data: &[u8]) -> Result<(), String> {
    use pakrat_iostore::shader_library::ZenShaderLibrary;
    use pakrat_iostore::shader_library::{convert, sniff, LegacyShaderLibrary, LibraryForm};
    match sniff(data) {
        Some(LibraryForm::Legacy) => {
            let lib = LegacyShaderLibrary::parse(data).map_err(err_text)?;
            assert!(
                lib.to_bytes() == data,
                "pak-form library write is not exact"
            );
            let zen = convert::plan_groups(
                &lib,
                "PCD3D_SM6",
                pakrat_iostore::Numbering::Ue5,
                convert::MAX_GROUP_SIZE,
            );
            ZenShaderLibrary::parse(&zen.to_bytes()).expect("a planned library reads back");
            Ok(())
        }
        Some(LibraryForm::Zen) => {
            let zen = ZenShaderLibrary::parse(data).map_err(err_text)?;
            assert!(zen.to_bytes() == data, "IoStore library write is not exact");
            convert::zen_shader_sizes(&zen).map_err(err_text)?;
            Ok(())
        }
        None => Err("not a shader library".into()),
    }
}

/// IoStore: open (key ring with the fixture key), list, read every chunk,
/// verify, container header + zen package headers, script objects.
fn iostore_case(
    utoc: &Path,
    script: Option<&pakrat_asset::zen::ScriptObjects>,
) -> Result<(), String> {
    use pakrat_asset::zen;
    use pakrat_codec::KeyRing;
    use pakrat_iostore::{verify, Container};
    let mut keys = KeyRing::new();
    keys.add(pakrat_codec::AesKey::parse(FIXTURE_KEY).map_err(err_text)?);
    let c = Container::open(utoc, &keys).map_err(err_text)?;
    let _ = c.directory();
    let chunks = c.chunks();
    let mut first_err = None;
    if c.has_data() {
        for ch in &chunks {
            if let Err(e) = c.read_chunk(ch.index) {
                first_err.get_or_insert(e.to_string());
            }
        }
        let rep = verify::verify(&c, &|_| {});
        if let Some(f) = rep.failures.first() {
            first_err.get_or_insert(format!("verify: {}: {}", f.area, f.message));
        }
        match zen::ContainerPackages::read(&c) {
            Ok(p) => {
                let _ = p.public_exports();
                for e in &p.packages {
                    let engine = pakrat_asset::legacy::Layout::for_engine("5.8");
                    if let Ok(o) =
                        pakrat_asset::props::open::open_container_entry(&c, &p, script, e, engine)
                    {
                        export_textures(&o, pakrat_asset::props::BulkFrom::Container(&c));
                        export_meshes(&o, pakrat_asset::props::BulkFrom::Container(&c));
                    }
                }
            }
            Err(e) => {
                // A global container has no container header; try its
                // script objects instead.
                if let Err(e2) = zen::load_script_objects(&c) {
                    first_err.get_or_insert(format!("{e}; {e2}"));
                }
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `.pak` (issue 10): footer, index, directory index, every entry's data
/// header, SHA-1 and decoding (`verify`), and an extraction into a fresh
/// folder that must hold nothing outside it.
fn pak_case(data: &[u8]) -> Result<(), String> {
    use pakrat_pak::{self as pak, Pak};
    let mut keys = pakrat_codec::KeyRing::new();
    keys.add(pakrat_codec::AesKey::parse(FIXTURE_KEY).map_err(err_text)?);
    keys.add(
        pakrat_codec::AesKey::parse("lNJbw660IOC+kU7cnVQ1oeqrXyhk4J6UAZrCBbcnp94=")
            .map_err(err_text)?,
    );
    let src = pakrat_io::Source::from_vec("case.pak", data.to_vec());
    let p = Pak::from_source(std::path::Path::new("case.pak"), src, &keys).map_err(err_text)?;
    let r = pak::verify::verify(&p);
    let paks = [p];
    for (ei, e) in paks[0].index.entries.iter().enumerate() {
        if e.deleted() || !pakrat_asset::props::open::is_package_header(&e.path) {
            continue;
        }
        for engine in [None, pakrat_asset::legacy::Layout::for_engine("5.8")] {
            if let Ok(o) = pakrat_asset::props::open::open_pak_entry(&paks, 0, ei, engine) {
                export_textures(&o, pakrat_asset::props::BulkFrom::Paks(&paks));
                export_meshes(&o, pakrat_asset::props::BulkFrom::Paks(&paks));
                break;
            }
        }
    }
    let [p] = paks;
    let dir = tempfile::tempdir().map_err(err_text)?;
    let out =
        pakrat_io::fsutil::OutputDir::create(dir.path().join("out"), false).map_err(err_text)?;
    let sel: Vec<&pak::PakEntry> = p.index.entries.iter().filter(|e| !e.deleted()).collect();
    let s = pak::extract::extract(&p, &sel, &out, &|_| {}, &pak::extract::Options::default());
    for f in walk_all(dir.path()) {
        if !f.starts_with(dir.path().join("out")) {
            return Err(format!(
                "extraction wrote outside its folder: {}",
                f.display()
            ));
        }
    }
    match (r.problems.first(), s.errors.first()) {
        (Some(x), _) => Err(x.message.clone()),
        (None, Some(e)) => Err(e.clone()),
        (None, None) => Ok(()),
    }
}

/// Texture surfaces [`export_textures`] decoded and wrote.
static TEXTURES_DECODED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What `pakrat export` does with a package's textures, into memory: the
/// texture model, every mip's bulk data, the top mip's first surface
/// decoded and written as PNG. Errors are expected on mutated input and
/// ignored (unversioned packages need the mappings, which this test does
/// not give); only panics, hangs and allocations count.
fn export_textures(o: &pakrat_asset::props::Opened, from: pakrat_asset::props::BulkFrom<'_>) {
    use pakrat_asset::texture;
    use pakrat_texture::{decode, write_png, DecodeOptions, PixelFormat};
    let asset = o.asset();
    for (i, e) in asset.exports.iter().enumerate() {
        if !texture::is_texture_class(e.class_name()) {
            continue;
        }
        let Ok(t) = texture::read_export(&asset, i, &pakrat_asset::props::NoSchemas) else {
            continue;
        };
        let Some(pf) = PixelFormat::from_ue_name(&t.format) else {
            continue;
        };
        for (k, m) in t.mips.iter().enumerate() {
            let Some(Ok(data)) = m.data.as_ref().map(|r| o.bulk(r, from)) else {
                continue;
            };
            if k > 0 {
                continue;
            }
            if let Ok(img) = decode(pf, m.width, m.height, &data, &DecodeOptions::default()) {
                if write_png(&img, &mut Vec::new()).is_ok() {
                    TEXTURES_DECODED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
    }
}

/// What `pakrat export --class Mesh` does with a package's UE4/UE5 meshes,
/// into memory: static and skeletal meshes read (streamed LODs fetched),
/// each LOD's scene written as `.glb` (skeletal meshes also as `.psk`);
/// skeletons read and written; animations read to their codec. Errors are
/// expected and ignored.
fn export_meshes(o: &pakrat_asset::props::Opened, from: pakrat_asset::props::BulkFrom<'_>) {
    use pakrat_mesh::gltf::{write, Format};
    use pakrat_mesh::ue5::{self, anim, skel_scene, skeleton};
    let asset = o.asset();
    let fetch = |b: &pakrat_asset::bulk::BulkRef| o.bulk(b, from).map(|c| c.into_owned());
    let none = &pakrat_asset::props::NoSchemas;
    for (i, e) in asset.exports.iter().enumerate() {
        match e.class_name() {
            "StaticMesh" => {
                let Ok(m) = ue5::read_static_mesh(&asset, i, none, &fetch) else {
                    continue;
                };
                for lod in 0..m.native.lods.len() {
                    if let Ok(scene) = ue5::to_scene(&m, lod) {
                        let _ = write(&scene, Format::Glb, "m");
                    }
                }
            }
            "SkeletalMesh" => {
                let Ok(m) = skel_scene::read_skeletal_mesh(&asset, i, none, &fetch) else {
                    continue;
                };
                for lod in 0..m.native.lods.len() {
                    if let Ok(scene) = skel_scene::to_scene(&m, lod, lod == 0) {
                        let _ = write(&scene, Format::Glb, "m");
                        let _ = pakrat_mesh::psk::write(&scene, "m", None);
                    }
                }
            }
            "Skeleton" => {
                if let Ok(s) = skeleton::read_skeleton(&asset, i, none) {
                    if let Ok(scene) = skel_scene::skeleton_scene(&s) {
                        let _ = write(&scene, Format::Glb, "m");
                    }
                }
            }
            "AnimSequence" => {
                if let Ok(a) = anim::read_anim_sequence(&asset, i, none, &fetch) {
                    if let Ok(t) = pakrat_mesh::ue5::anim_codec::decode(&a) {
                        let skel = skeleton::RefSkeleton::default();
                        let _ = pakrat_mesh::ue5::anim_scene::to_scene(&a, &t, &skel, None);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The overlap shapes of issue 32 for a `.utoc`: block entries given
/// another's offset (distinct entries over the same `.ucas` bytes) or
/// copied whole (repeated blocks), for two blocks and for every block.
fn utoc_overlaps(data: &[u8]) -> Vec<Mutation> {
    use pakrat_iostore::toc::TocVersion;
    let Ok(t) = pakrat_iostore::Toc::parse(data) else {
        return Vec::new();
    };
    let v = t.header.version;
    let n = t.len();
    let mut at = data.get(20..24).map_or(0, |b| {
        u32::from_le_bytes(b.try_into().unwrap_or_default()) as usize
    }) + 22 * n;
    if v >= TocVersion::PerfectHash as u8 {
        at += 4 * t.perfect_hash_seeds.len();
    }
    if v >= TocVersion::PerfectHashWithOverflow as u8 {
        at += 4 * t.chunks_without_perfect_hash.len();
    }
    let fields: Vec<usize> = (0..t.blocks.len()).map(|i| at + 12 * i).collect();
    let mut out = overlap_mutations(data, &fields, 5, "block offset");
    out.extend(overlap_mutations(data, &fields, 12, "block entry"));
    out
}

/// The overlap shapes of issue 32 for a `.pak` whose index holds full
/// entries (before v10, unencrypted index): entries given another's data
/// offset, and the blocks of the first multi-block entry all given its
/// first block's range. (The encoded entries of v10+ lay blocks back to
/// back and are not patched here.)
fn pak_overlaps(data: &[u8]) -> Vec<Mutation> {
    use pakrat_pak::Pak;
    let src = pakrat_io::Source::from_vec("case.pak", data.to_vec());
    let Ok(p) = Pak::from_source(Path::new("case.pak"), src, &pakrat_codec::KeyRing::new()) else {
        return Vec::new();
    };
    let f = &p.footer;
    if f.version >= 10 || f.encrypted_index {
        return Vec::new();
    }
    let (a, z) = (
        f.index_offset as usize,
        (f.index_offset + f.index_size) as usize,
    );
    let Some(index) = data.get(a..z) else {
        return Vec::new();
    };
    // Each entry: FString path (with its NUL), then the record's Offset.
    let mut offsets = Vec::new();
    let mut blocks = Vec::new();
    for e in &p.index.entries {
        let mut key = e.path.as_bytes().to_vec();
        key.push(0);
        key.extend_from_slice(&e.offset.to_le_bytes());
        let Some(k) = index.windows(key.len()).position(|w| w == key.as_slice()) else {
            continue;
        };
        let rec = a + k + key.len() - 8;
        offsets.push(rec);
        if blocks.is_empty() && e.blocks.len() >= 2 && f.version >= 3 {
            let method = if p.layout.method_byte { 1 } else { 4 };
            let table = rec + 24 + method + 20 + 4;
            blocks = (0..e.blocks.len()).map(|i| table + 16 * i).collect();
        }
    }
    let mut out = overlap_mutations(data, &offsets, 8, "entry offset");
    out.extend(overlap_mutations(data, &blocks, 16, "compression block"));
    out
}

fn walk_all(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(d) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_all(&p));
            }
            out.push(p);
        }
    }
    out
}

/// The `.ucas` partitions beside a `.utoc` (`X.ucas`, `X_s1.ucas`, ...).
fn partitions(utoc: &Path) -> Vec<PathBuf> {
    (0..64)
        .map(|p| pakrat_iostore::container::partition_path(utoc, p))
        .take_while(|p| p.is_file())
        .collect()
}

#[derive(Default)]
struct Tally {
    cases: usize,
    ok: usize,
    errors: usize,
    peak: usize,
}

/// Which mutated files a test takes: `.ucas` data of Oodle containers, or
/// everything else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    AllButOodleData,
    OodleData,
}

/// The two tests share the counting allocator: never run them at once.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether the `.utoc` names Oodle among its methods.
fn uses_oodle(utoc: &Path) -> bool {
    std::fs::read(utoc)
        .ok()
        .and_then(|d| pakrat_iostore::Toc::parse(&d).ok())
        .is_some_and(|t| {
            t.method_names
                .iter()
                .any(|m| m.eq_ignore_ascii_case("oodle"))
        })
}

#[test]
fn corpus_mutations_end_cleanly() {
    run(Part::AllButOodleData);
}

/// Mutated `.ucas` blocks of Oodle containers: `oozextract` panics on some
/// corrupt streams, which pakrat-iostore must contain (finding F1 in
/// helper-notes/findings-pakrat-iostore.md, fixed in 0716b6c).
#[test]
fn oodle_block_mutations_end_cleanly() {
    run(Part::OodleData);
}

fn run(part: Part) {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(rows) = pakrat_testkit::manifest() else {
        return;
    };
    ALLOC.set_limit(SINGLE_REQUEST_LIMIT);
    let started = Instant::now();
    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let work = tempfile::tempdir().expect("temp dir");
    let mut overlap_cases: BTreeMap<&'static str, usize> = BTreeMap::new();

    for (fi, e) in rows.iter().enumerate() {
        let lower = e.local_path.to_ascii_lowercase();
        let kind: &'static str = match e.kind.as_str() {
            "umod" => "umod",
            "ue1" | "ue2" | "ue3" | "licensee" => "package",
            "uz" => "uz",
            "iostore" if lower.ends_with(".utoc") => "utoc",
            "iostore" if lower.ends_with(".ucas") => "ucas",
            "iostore" | "pak" if lower.ends_with(".pak") => "pak",
            "usmap" => "usmap",
            "zenpair" if lower.contains("shaderarchive-") => "shaderlib",
            _ => continue,
        };
        let original = std::fs::read(&e.path).expect("read corpus file");
        let mut muts = mutations(&original, SEED ^ fi as u64, count_for(e.size));
        let shapes = match kind {
            "utoc" => utoc_overlaps(&original),
            "pak" => pak_overlaps(&original),
            _ => Vec::new(),
        };
        *overlap_cases.entry(kind).or_insert(0) += shapes.len();
        muts.extend(shapes);
        // IoStore cases need files: a folder per corpus file holding the
        // mutated file next to links to its (unmutated) companions.
        let case_dir = work.path().join(format!("f{fi}"));
        let (utoc_path, extra_input) = match kind {
            "utoc" | "ucas" => {
                std::fs::create_dir_all(&case_dir).expect("case dir");
                let utoc = if kind == "utoc" {
                    e.path.clone()
                } else {
                    let stem = e.path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                    let base = match stem.rsplit_once("_s") {
                        Some((b, n)) if n.chars().all(|c| c.is_ascii_digit()) => b,
                        _ => stem,
                    };
                    e.path.with_file_name(format!("{base}.utoc"))
                };
                if !utoc.is_file() {
                    continue;
                }
                let oodle_data = kind == "ucas" && uses_oodle(&utoc);
                if oodle_data != (part == Part::OodleData) {
                    continue;
                }
                let mut total = std::fs::metadata(&utoc).map(|m| m.len()).unwrap_or(0);
                let target = case_dir.join(utoc.file_name().expect("name"));
                std::os::unix::fs::symlink(&utoc, &target).expect("link utoc");
                for p in partitions(&utoc) {
                    total += std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                    std::os::unix::fs::symlink(&p, case_dir.join(p.file_name().expect("name")))
                        .expect("link ucas");
                }
                (Some(target), total as usize)
            }
            _ if part == Part::OodleData => continue,
            _ => (None, original.len()),
        };
        // Script objects of the global container beside the original, for
        // the texture exports of its packages (loaded once per file).
        let script = utoc_path
            .as_ref()
            .and_then(|_| pakrat_asset::props::open::find_global(&e.path))
            .filter(|g| g != &e.path)
            .and_then(|g| {
                pakrat_asset::props::open::load_global(&g, &pakrat_codec::KeyRing::new()).ok()
            })
            .map(std::sync::Arc::new);
        // The unmutated file first: valid UMOD, redirect, IoStore and .pak
        // files of the corpus must pass the same calls cleanly, or the
        // errors below would prove nothing.
        let must_pass = matches!(kind, "umod" | "uz" | "utoc" | "pak" | "usmap" | "shaderlib")
            && !e.is_negative();
        let original_case = must_pass.then(|| Mutation {
            name: "original".into(),
            data: original.clone(),
        });
        for m in original_case.into_iter().chain(muts) {
            let is_original = m.name == "original";
            let label = format!("{} [{}]", e.local_path, m.name);
            set_label(&label);
            let input_len = extra_input.max(m.data.len());
            let mut budget = BASE_BUDGET + PER_INPUT_BYTE * input_len;
            if kind == "uz" {
                budget += 4 * UZ_OUTPUT_CAP;
            }
            // Put the mutated file in place for the IoStore kinds.
            let mutated_path = utoc_path.as_ref().map(|t| {
                let p = if kind == "utoc" {
                    t.clone()
                } else {
                    case_dir.join(e.path.file_name().expect("name"))
                };
                let _ = std::fs::remove_file(&p);
                std::fs::write(&p, &m.data).expect("write mutated file");
                p
            });
            let before = ALLOC.live();
            ALLOC.reset_peak();
            let utoc_for_case = utoc_path.clone();
            let script_for_case = script.clone();
            let outcome = run_case(m.data, CASE_LIMIT, move |d| match kind {
                "umod" => umod_case(d),
                "package" => package_case(d),
                "uz" => uz_case(d),
                "usmap" => usmap_case(d),
                "shaderlib" => shader_library_case(d),
                "utoc" | "ucas" => iostore_case(
                    utoc_for_case.as_deref().expect("utoc"),
                    script_for_case.as_deref(),
                ),
                _ => pak_case(d),
            });
            let peak = ALLOC.peak().saturating_sub(before);
            // Restore the original companion (a link) for the next case.
            if let (Some(p), "utoc") = (&mutated_path, kind) {
                let _ = std::fs::remove_file(p);
                std::os::unix::fs::symlink(&e.path, p).expect("relink utoc");
            } else if let (Some(p), "ucas") = (&mutated_path, kind) {
                let _ = std::fs::remove_file(p);
                std::os::unix::fs::symlink(&e.path, p).expect("relink ucas");
            }
            let t = tally.entry(kind).or_default();
            t.cases += 1;
            t.peak = t.peak.max(peak);
            match outcome {
                Ok(Ok(())) => t.ok += 1,
                Ok(Err(msg)) if is_original => {
                    failures.push(format!("{label}: the unmutated file fails: {msg}"));
                    continue;
                }
                Ok(Err(_)) => t.errors += 1,
                Err(f) => {
                    let why = match f {
                        Failure::Panic(p) => format!("panic: {p}"),
                        Failure::Hang(d) => format!("no result within {d:?}"),
                        Failure::Memory { peak, budget } => {
                            format!("peak {peak} bytes over budget {budget}")
                        }
                        Failure::UnclearError(s) => format!("unclear error {s:?}"),
                    };
                    failures.push(format!("{label}: {why}"));
                    continue;
                }
            }
            if peak > budget {
                failures.push(format!(
                    "{label}: peak heap {peak} bytes over budget {budget} (input {input_len} bytes)"
                ));
            }
        }
    }
    set_label("");
    let (mut cases, mut ok, mut errors) = (0, 0, 0);
    for (k, t) in &tally {
        println!(
            "mutation {k:8} cases {:5}  ok {:5}  errors {:5}  max peak {:.1} MiB",
            t.cases,
            t.ok,
            t.errors,
            t.peak as f64 / 1048576.0
        );
        cases += t.cases;
        ok += t.ok;
        errors += t.errors;
    }
    println!(
        "mutation summary: {cases} cases, {ok} ok, {errors} clear errors, {} failures, {:.1} s",
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    for f in &failures {
        println!("FAILURE {f}");
    }
    overlap_cases.retain(|_, n| *n > 0);
    println!("mutation overlap shapes (issue 32): {overlap_cases:?}");
    let surfaces = TEXTURES_DECODED.load(std::sync::atomic::Ordering::Relaxed);
    println!("mutation texture exports: {surfaces} surfaces decoded and written");
    if part == Part::AllButOodleData {
        // The originals alone export every fixture texture: the texture
        // path was exercised, not skipped by an early error.
        assert!(surfaces > 40, "{surfaces} texture surfaces exported");
    }
    if part == Part::AllButOodleData {
        assert!(
            overlap_cases.contains_key("utoc") && overlap_cases.contains_key("pak"),
            "no overlap shapes were made: {overlap_cases:?}"
        );
    }
    let min_cases = if part == Part::OodleData { 50 } else { 500 };
    assert!(cases > min_cases, "only {cases} cases ran");
    assert!(errors > 0 && ok > 0, "mutations should give both outcomes");
    assert!(
        failures.is_empty(),
        "{} mutation failures (listed above)",
        failures.len()
    );
}

/// Finding F1 (helper-notes/findings-pakrat-iostore.md): one flipped bit in
/// an Oodle block must give an error from `verify`/`read_chunk`, not a
/// panic inside `oozextract`.
#[test]
fn oodle_flipped_bit_is_an_error() {
    let Some(rows) = pakrat_testkit::entries("iostore") else {
        return;
    };
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let utoc = rows
        .iter()
        .find(|e| {
            e.local_path.ends_with(
                "UE6_0/IoStore/Tagged/OodlePartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc",
            )
        })
        .expect("fixture in manifest")
        .path
        .clone();
    let dir = tempfile::tempdir().unwrap();
    for p in partitions(&utoc).into_iter().chain([utoc.clone()]) {
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    let s4 = dir
        .path()
        .join("CUE4ParseFixtures-Minimal-OodlePartitioned-Windows_s4.ucas");
    let mut b = std::fs::read(&s4).unwrap();
    b[0x30] ^= 0x20;
    std::fs::write(&s4, &b).unwrap();
    let copy = dir.path().join(utoc.file_name().unwrap());
    let r = run_case(Vec::new(), CASE_LIMIT, move |_| iostore_case(&copy, None));
    match r {
        Ok(Err(e)) => assert!(e.contains("block"), "{e}"),
        Ok(Ok(())) => panic!("a corrupt Oodle block verified clean"),
        Err(f) => panic!("{f:?}"),
    }
}

/// Fuzz target `block_oodle` crash (finding F1): 4-byte output size
/// (0x244 = 580 bytes) then a corrupt Oodle block; `oozextract`
/// panics (`bit_reader.rs:189: assertion failed: n <= 12`).
const OODLE_CRASH_1: &str = "440200008c0600017288017000000000980100000000ee02002200803a0310011001287080949403003064c11e3f77768ad648145bc02474e10c915aaedbdd9242374500990300210c0050434d53575f53747265616d696e672f47616d652f46697874757265732f417564696f2f06000000006052ffffffffffffffff2e4000000004010501049809008d498e626462f24422097cdcd3ceac51ae45f47fe256084ea80105fba81e48d5349d0b0002030203020d040f020103640156c040003301483a7e0a94579e54469b6dcb15721b5e620305494646be09040057415645666d7420120144ac02001064617461980904002e2e04020000009809000098090000c1832a9e00003905c803024205050505d5c802cdcaebcd0ad715975515d80f172d2fd3409515d8d8d8581715e898ec4741c8c9eb0b54d9cfcd820787d590c8cd00001804080c0d03090200080e0000080c0015040a12080c0a100800000f033f00060000d400150609030e0d00060035160011a0c000d44c9a090881";

#[test]
fn fuzz_regression_block_oodle_is_an_error() {
    use pakrat_codec::compress::{decompress, Method};
    let data: Vec<u8> = (0..OODLE_CRASH_1.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&OODLE_CRASH_1[i..i + 2], 16).unwrap())
        .collect();
    // Same framing as fuzz/src/lib.rs take_len with MAX_BLOCK_OUT = 256 KiB.
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize % ((1 << 18) + 1);
    let r = run_case(data, CASE_LIMIT, move |d| {
        let mut out = vec![0u8; n];
        decompress(&Method::Oodle, &d[4..], &mut out).map_err(|e| e.to_string())
    });
    assert!(matches!(r, Ok(Err(_))), "{r:?}");
}

/// Finding F2 (helper-notes/findings-pakrat-iostore.md), found by the fuzz
/// target `utoc_toc`: an entry of length 0 whose offset lies past the block
/// table makes `Toc::block_range` return an empty range starting past the
/// end, and `Toc::compressed_size` (so `Container::chunks`, `pakrat list
/// --chunks`) slices the block table with it and panics.
#[test]
fn fuzz_regression_zero_length_entry_past_blocks() {
    let Some(rows) = pakrat_testkit::entries("iostore") else {
        return;
    };
    let e = rows
        .iter()
        .find(|e| {
            e.local_path.ends_with(
                "UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc",
            )
        })
        .expect("fixture in manifest");
    let mut data = std::fs::read(&e.path).unwrap();
    let n = pakrat_iostore::Toc::parse(&data).unwrap().len();
    // Offsets follow the 0x90-byte header and the 12-byte chunk ids: two
    // big-endian 40-bit values per entry. Entry 0: offset 0xFF_FFFF_0000, length 0.
    let at = 0x90 + 12 * n;
    data[at..at + 10].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0]);
    let r = run_case(data, CASE_LIMIT, |d| {
        let toc = pakrat_iostore::Toc::parse(d).map_err(|e| e.to_string())?;
        let _ = toc.block_range(0);
        let _ = toc.compressed_size(0);
        Ok(())
    });
    assert!(r.is_ok(), "{r:?}");
}

/// The install planner and install/uninstall (issue 16): each corpus
/// UMOD's Manifest.ini is mutated (same fixed seed), packed again with
/// the original members into a valid archive, planned against a small game
/// folder, then installed into a fresh copy of that folder and uninstalled.
/// Nothing may panic; whatever install did, uninstall must leave every file
/// that was there before with its bytes, and nothing may land outside.
#[test]
fn install_planner_mutations_end_cleanly() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(rows) = pakrat_testkit::manifest() else {
        return;
    };
    use pakrat_umod::install::{install, plan, uninstall, InstallOptions};
    let work = tempfile::tempdir().expect("temp dir");
    let base: [(&str, &[u8]); 4] = [
        (
            "System/Manifest.ini",
            b"[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\nFile=System\\Engine.u\r\n\r\n[RefCounts]\r\nFile:System\\Engine.u=1\r\n",
        ),
        ("System/Engine.u", b"engine"),
        (
            "System/UnrealTournament.ini",
            b"[Engine.GameEngine]\r\nServerPackages=Botpack\r\n",
        ),
        ("Maps/DM-Deck16.unr", b"a user's map"),
    ];
    let make_game = |dir: &Path| {
        for (rel, b) in base {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b).unwrap();
        }
    };
    let (mut cases, mut planned, mut installed) = (0, 0, 0);
    for (fi, e) in rows.iter().enumerate().filter(|(_, e)| e.kind == "umod") {
        let original = std::fs::read(&e.path).expect("read corpus file");
        let Ok(u) = pakrat_umod::Umod::parse(&original) else {
            continue;
        };
        let Some(m) = u.find("System\\Manifest.ini") else {
            continue;
        };
        let ini = u.entry_data(m).expect("manifest bytes").to_vec();
        let members: Vec<(String, Vec<u8>, u32)> = u
            .entries
            .iter()
            .filter(|x| !x.name.eq_ignore_ascii_case("System\\Manifest.ini"))
            .map(|x| {
                (
                    x.name.clone(),
                    u.entry_data(x).unwrap_or_default().to_vec(),
                    x.flags,
                )
            })
            .collect();
        let mut muts = mutations(&ini, SEED ^ fi as u64 ^ 0x1A57, 48);
        muts.push(Mutation {
            name: "unchanged".into(),
            data: ini.clone(),
        });
        for (k, mu) in muts.iter().enumerate() {
            cases += 1;
            set_label(&format!("install {} {}", e.local_path, mu.name));
            let mut list: Vec<(&str, &[u8], u32)> =
                vec![("System\\Manifest.ini", mu.data.as_slice(), 3)];
            list.extend(
                members
                    .iter()
                    .map(|(n, d, f)| (n.as_str(), d.as_slice(), *f)),
            );
            let bytes = pakrat_umod::create::to_bytes(&list).expect("pack");
            let u = pakrat_umod::Umod::parse(&bytes).expect("packed archive parses");
            let root = work.path().join(format!("c{fi}-{k}"));
            let game = root.join("game");
            make_game(&game);
            let before: Vec<(String, Vec<u8>)> = base
                .iter()
                .map(|(r, _)| (r.to_string(), std::fs::read(game.join(r)).unwrap()))
                .collect();
            let opts = InstallOptions {
                ignore_requirements: true,
                ..Default::default()
            };
            if plan(&u, &game, &opts).is_ok() {
                planned += 1;
            }
            let rep = install(&u, &game, &opts);
            if let Ok(r) = &rep {
                installed += 1;
                uninstall(&r.product, &game, false).unwrap_or_else(|err| {
                    panic!("{}: {}: uninstall: {err}", e.local_path, mu.name)
                });
            }
            for (rel, bytes) in &before {
                if rel == "System/Manifest.ini" || rel == "System/UnrealTournament.ini" {
                    continue; // the record and ini edits may change them
                }
                assert_eq!(
                    std::fs::read(game.join(rel)).ok().as_ref(),
                    Some(bytes),
                    "{}: {}: {rel} changed by install + uninstall",
                    e.local_path,
                    mu.name
                );
            }
            let outside: Vec<_> = std::fs::read_dir(&root)
                .unwrap()
                .map(|x| x.unwrap().file_name())
                .collect();
            assert_eq!(
                outside,
                ["game"],
                "{}: {}: wrote beside the game",
                e.local_path,
                mu.name
            );
            let _ = std::fs::remove_dir_all(&root);
        }
    }
    eprintln!("install planner mutations: {cases} cases, {planned} planned, {installed} installed");
    assert!(
        cases > 0 && installed > 0,
        "the planner was never exercised"
    );
}
