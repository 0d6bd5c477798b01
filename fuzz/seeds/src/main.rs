//! Write the seed corpora of the fuzz targets from the shared corpus.
//!
//! ```text
//! cargo run --release --manifest-path fuzz/Cargo.toml -p pakrat-fuzz-seeds -- [OUT_DIR] [MAX_SEED_BYTES]
//! ```
//!
//! `OUT_DIR` defaults to `fuzz/corpus`; the corpus is found like the tests
//! find it (`../shared/corpus`, or `PAKRAT_CORPUS`). Seeds are cut out of
//! real files with the library itself (directory indexes, container
//! headers, zen package headers, compressed blocks, texture mips), so they
//! reach deep into each parser. Nothing here is committed: re-run after a
//! corpus change. `MAX_SEED_BYTES` (default 262144) skips whole files above
//! that size for the whole-file targets (libFuzzer is slow on big inputs).

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use pakrat_codec::compress::Method;
use pakrat_iostore::toc::ChunkType;
use pakrat_iostore::Container;
use pakrat_codec::KeyRing;
use pakrat_classic::export::{kind_of_class, Kind};
use pakrat_classic::texture::{self, FormatTable, PixelFormat};
use pakrat_classic::Package;

/// Key of the encrypted CUE4Parse fixtures (corpus README).
const FIXTURE_KEY: &str = "435545345061727365466978747572654145534b657930313233343536373839";

struct Out {
    root: PathBuf,
    counts: HashMap<&'static str, usize>,
}

impl Out {
    fn put(&mut self, target: &'static str, name: &str, data: &[u8]) {
        let dir = self.root.join(target);
        fs::create_dir_all(&dir).expect("create seed folder");
        let n = self.counts.entry(target).or_insert(0);
        *n += 1;
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!(
            "{:04}-{}",
            *n,
            &clean[clean.len().saturating_sub(80)..]
        ));
        fs::write(&path, data).expect("write seed");
    }
}

fn base(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn format_index(f: PixelFormat) -> Option<u8> {
    // Same order as fuzz_targets/texture_pixels.rs.
    use PixelFormat as F;
    let all = [
        F::P8,
        F::Rgba7,
        F::Rgb565,
        F::Dxt1,
        F::Rgb8,
        F::Bgra8,
        F::Bgra8Lm,
        F::NoData,
        F::Dxt3,
        F::Dxt5,
        F::L8,
        F::G16,
    ];
    all.iter().position(|x| *x == f).map(|i| i as u8)
}

fn package_seeds(out: &mut Out, name: &str, data: &[u8], max: usize, pixels: &mut usize) {
    if data.len() <= max {
        out.put("package_tables", name, data);
    }
    let Ok(pkg) = Package::parse_lenient(data) else {
        return;
    };
    if data.len() <= max {
        out.put("package_props", name, data);
        out.put("package_write", name, data);
        let mut kinds = Vec::new();
        for i in 0..pkg.exports.len() {
            if let Some(k) = pkg.export_class_name(i).ok().and_then(kind_of_class) {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
        }
        for k in kinds {
            let targets: &[&str] = match k {
                Kind::Texture => &["export_texture"],
                Kind::Sound => &["export_sound"],
                Kind::Music => &["export_music"],
                Kind::TextBuffer => &["export_textbuffer"],
                Kind::Mesh => &["mesh_ue1", "mesh_ue2_static"],
                Kind::Material => &["export_material"],
            };
            for &t in targets {
                out.put(t, name, data);
            }
        }
    }
    // Pixel seeds: a few mips of each format, at most 64 KiB each.
    for i in 0..pkg.exports.len() {
        if *pixels >= 200 {
            break;
        }
        let Ok(t) = texture::read_texture(&pkg, i) else {
            continue;
        };
        let Some(pf) = FormatTable::for_package(&pkg, t.format).get(t.format) else {
            continue;
        };
        let Some(fi) = format_index(pf) else { continue };
        for (m, mip) in t.mips.iter().enumerate() {
            if mip.data.len() > 65536 || mip.width > 0xFFFF || mip.height > 0xFFFF {
                continue;
            }
            let mut v = vec![fi];
            v.extend_from_slice(&(mip.width as u16).to_le_bytes());
            v.extend_from_slice(&(mip.height as u16).to_le_bytes());
            v.push(if t.masked { 2 } else { 0 });
            v.extend_from_slice(mip.data);
            out.put("texture_pixels", &format!("{name}-{i}-mip{m}"), &v);
            *pixels += 1;
            break;
        }
    }
}

fn block_target(m: &Method) -> Option<&'static str> {
    Some(match m {
        Method::Zlib => "block_zlib",
        Method::Gzip => "block_gzip",
        Method::Lz4 => "block_lz4",
        Method::Zstd => "block_zstd",
        Method::Oodle => "block_oodle",
        _ => return None,
    })
}

fn block_seed(uncompressed: usize, block: &[u8]) -> Vec<u8> {
    let mut v = (uncompressed as u32).to_le_bytes().to_vec();
    v.extend_from_slice(block);
    v
}

fn iostore_seeds(
    out: &mut Out,
    path: &Path,
    name: &str,
    data: &[u8],
    max: usize,
    raw: &mut Vec<Vec<u8>>,
) {
    if data.len() <= max.max(1 << 20) {
        out.put("utoc_toc", name, data);
    }
    let mut keys = KeyRing::new();
    keys.add(pakrat_codec::AesKey::parse(FIXTURE_KEY).expect("fixture key"));
    let Ok(c) = Container::open(path, &keys) else {
        return;
    };
    let toc = c.toc();
    let encrypted = toc.header.encryption() != pakrat_iostore::toc::EncryptionMethod::None;
    if !encrypted && !toc.directory_index.is_empty() && toc.directory_index.len() <= 1 << 20 {
        out.put("utoc_dirindex", name, &toc.directory_index);
    }
    if !c.has_data() {
        return;
    }
    if let Some(i) = c.find_by_type(ChunkType::ContainerHeader) {
        if let Ok(h) = c.read_chunk(i) {
            out.put("container_header", name, &h);
        }
    }
    if let Some(i) = c.find_by_type(ChunkType::ScriptObjects) {
        if let Ok(s) = c.read_chunk(i) {
            out.put("script_objects", name, &s);
        }
    }
    let mut zen = 0;
    for i in 0..toc.len() {
        if zen >= 8 {
            break;
        }
        let id = toc.chunk_ids[i];
        if toc.chunk_type(i) == ChunkType::ExportBundleData && id.index() == 0 {
            if let Ok(d) = c.read_chunk(i) {
                if d.len() <= 65536 {
                    out.put("zen_header", &format!("{name}-{i}"), &d);
                    out.put("zen_to_legacy", &format!("{name}-{i}"), &d);
                    zen += 1;
                }
            }
        }
    }
    if encrypted {
        return;
    }
    let mut per_method: HashMap<&'static str, usize> = HashMap::new();
    for (bi, b) in toc.blocks.iter().enumerate() {
        let Some(m) = c.methods().get(usize::from(b.method_index)) else {
            continue;
        };
        let Ok(bytes) = c.block_bytes(bi, b, false) else {
            continue;
        };
        if let Some(t) = block_target(m) {
            let n = per_method.entry(t).or_insert(0);
            if *n < 6 && bytes.len() <= 65536 {
                out.put(
                    t,
                    &format!("{name}-{bi}"),
                    &block_seed(b.uncompressed_size as usize, bytes),
                );
                *n += 1;
            }
        }
        if raw.len() < 12 {
            let mut buf = vec![0u8; b.uncompressed_size as usize];
            if c.read_block(bi, &mut buf).is_ok() {
                raw.push(buf);
            }
        }
    }
}

/// Legacy `.uasset`/`.umap` packages stored in a pak (unencrypted ones):
/// the header for the reader and summary targets, header + `.uexp` for
/// legacy → zen.
fn legacy_seeds(out: &mut Out, path: &std::path::Path, name: &str) {
    use pakrat_asset::legacy::is_legacy_package;
    let Ok(pak) = pakrat_pak::Pak::open(path, &pakrat_codec::KeyRing::default()) else {
        return;
    };
    // AssetRegistry.bin of the fixture projects' `Pak/` paks (~220 KiB).
    for e in &pak.index.entries {
        if e.path.ends_with("AssetRegistry.bin") {
            if let Ok(data) = pak.read(e) {
                out.put("asset_registry", name, &data);
            }
        }
    }
    let mut n = 0;
    for e in &pak.index.entries {
        let Some(stem) = e
            .path
            .strip_suffix(".uasset")
            .or_else(|| e.path.strip_suffix(".umap"))
        else {
            continue;
        };
        let Ok(asset) = pak.read(e) else { continue };
        if !is_legacy_package(&asset) || asset.len() > 65536 || n >= 12 {
            continue;
        }
        n += 1;
        let seed = format!("{name}-{}", base(&e.path));
        out.put("legacy_package", &seed, &asset);
        out.put("legacy_summary", &seed, &asset);
        let uexp = pak
            .index
            .entries
            .iter()
            .find(|u| u.path == format!("{stem}.uexp"))
            .and_then(|u| pak.read(u).ok())
            .unwrap_or_default();
        if uexp.len() <= 65536 {
            let mut v = (asset.len() as u32).to_le_bytes().to_vec();
            v.extend_from_slice(&asset);
            v.extend_from_slice(&uexp);
            out.put("legacy_to_zen", &seed, &v);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus"));
    let max: usize = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(256 << 10);
    let Some(rows) = pakrat_testkit::manifest() else {
        eprintln!("no corpus: set PAKRAT_CORPUS or put it at ../shared/corpus");
        std::process::exit(1);
    };
    let mut out = Out {
        root,
        counts: HashMap::new(),
    };
    let mut pixels = 0;
    let mut raw_blocks = Vec::new();
    let mut small_packages: Vec<Vec<u8>> = Vec::new();
    for e in &rows {
        let Ok(data) = fs::read(&e.path) else {
            continue;
        };
        let name = base(&e.local_path);
        let lower = name.to_ascii_lowercase();
        // The detector sees a head and a tail: small files whole, big ones
        // cut to their first and last 4 KiB.
        if data.len() <= 16 << 10 {
            out.put("detect", name, &data);
        } else {
            let mut v = data[..4096].to_vec();
            v.extend_from_slice(&data[data.len() - 4096..]);
            out.put("detect", name, &v);
        }
        match e.kind.as_str() {
            "umod" => {
                out.put("umod_archive", name, &data);
                out.put("system_ini", name, b"");
                if let Ok(u) = pakrat_umod::Umod::parse(&data) {
                    let ini = u
                        .find("System\\Manifest.ini")
                        .and_then(|m| u.entry_data(m).ok());
                    let int = u
                        .find("System\\Manifest.int")
                        .and_then(|m| u.entry_data(m).ok());
                    if let Some(ini) = ini {
                        let mut v = ini.to_vec();
                        if let Some(int) = int {
                            v.extend_from_slice(&[0, 0, 0xFF]);
                            v.extend_from_slice(int);
                        }
                        out.put("umod_manifest", name, &v);
                        out.put("system_ini", name, ini);
                        out.put("umod_install_plan", name, ini);
                    }
                }
            }
            "ue1" | "ue2" | "ue3" => {
                if data.len() <= 64 << 10 && e.kind != "ue3" && small_packages.len() < 4 {
                    small_packages.push(data.clone());
                }
                package_seeds(&mut out, name, &data, max, &mut pixels);
            }
            // Licensee builds (Lineage II ones decrypted, as pakrat reads them).
            "licensee" => {
                let data = match pakrat_classic::lineage::decrypt(&data) {
                    Ok(Some(d)) => d.body,
                    _ => data,
                };
                package_seeds(&mut out, name, &data, max, &mut pixels);
            }
            // Whole mappings files (under libFuzzer's 1 MiB -max_len of
            // fuzz/run_all.sh; the uncompressed ones are over it).
            "usmap" if data.len() <= 1 << 20 => out.put("usmap", name, &data),
            "uz" => {
                out.put("uz_detect", name, &data);
                match data.get(..4) {
                    Some([0xD2, 0x04, 0, 0]) => out.put("uz_1234", name, &data),
                    Some([0x2E, 0x16, 0, 0]) => out.put("uz_5678", name, &data),
                    _ => out.put("uz2", name, &data),
                }
            }
            "iostore" if lower.ends_with(".utoc") => {
                iostore_seeds(&mut out, &e.path, name, &data, max, &mut raw_blocks)
            }
            "iostore" | "pak" if lower.ends_with(".pak") => {
                out.put("pak_footer", name, &data);
                if data.len() <= max {
                    out.put("pak_open", name, &data);
                }
                legacy_seeds(&mut out, &e.path, name);
                // The first entry's data header, behind each layout byte.
                for sel in [4u8, 10, 0x17, 0x2e] {
                    let mut v = vec![sel];
                    v.extend_from_slice(&data[..data.len().min(96)]);
                    out.put("pak_entry", &format!("{name}-{sel}"), &v);
                }
            }
            _ => {}
        }
    }
    // Formats the corpus lacks (uz3, uz from 5678, gzip/lz4/zstd blocks):
    // made here from real corpus bytes with the writers.
    for (k, p) in small_packages.iter().enumerate() {
        use pakrat_uz::{compress, CompressOptions, UzFormat, UzSignature};
        let n = format!("made{k}");
        for (t, f, sig) in [
            ("uz_1234", UzFormat::Uz, UzSignature::S1234),
            ("uz_5678", UzFormat::Uz, UzSignature::S5678),
            ("uz2", UzFormat::Uz2, UzSignature::S5678),
            ("uz3", UzFormat::Uz3, UzSignature::S5678),
        ] {
            let mut o = CompressOptions::new(f, "Made.u");
            o.signature = sig;
            if let Ok(c) = compress(p, &o) {
                out.put(t, &n, &c);
                out.put("uz_detect", &n, &c);
            }
        }
    }
    for (k, b) in raw_blocks.iter().enumerate() {
        let n = format!("made{k}");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b).expect("gzip");
        out.put(
            "block_gzip",
            &n,
            &block_seed(b.len(), &gz.finish().expect("gzip")),
        );
        out.put(
            "block_lz4",
            &n,
            &block_seed(b.len(), &lz4_flex::block::compress(b)),
        );
        out.put(
            "block_zstd",
            &n,
            &block_seed(b.len(), &zstd::bulk::compress(b, 3).expect("zstd")),
        );
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b).expect("zlib");
        out.put(
            "block_zlib",
            &n,
            &block_seed(b.len(), &z.finish().expect("zlib")),
        );
    }
    out.put("system_ini", "paths.ini", b"[Core.System]\r\nPurgeCacheDays=30\r\nCachePath=../Cache\r\nCacheExt=.uxx\r\nPaths=../System/*.u\r\nPaths=../Maps/*.unr\r\nPaths[0]=../Textures/*.utx\r\n\r\n[Cache]\r\n0123456789ABCDEF0123456789ABCDEF=Foo.u\r\n");
    let mut v: Vec<_> = out.counts.iter().collect();
    v.sort();
    for (t, n) in v {
        println!("{t:20} {n} seeds");
    }
    println!("written under {}", out.root.display());
}
