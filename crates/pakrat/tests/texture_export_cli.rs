//! `pakrat export` of UE4/UE5 textures against the referee: the fixture
//! containers' and paks' textures export, and match the SourceTextures
//! images they were cooked from (uncompressed formats exactly,
//! block-compressed ones above a PSNR floor, HDR within tolerance).

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pakrat_texture::{psnr, Image, Pixels};
use serde_json::Value;

fn pakrat() -> Command {
    Command::cargo_bin("pakrat").unwrap()
}

fn find(dir: &Path, ext: &str) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == ext))
        .unwrap_or_else(|| panic!("no .{ext} in {}", dir.display()))
}

/// Run `pakrat export ARGS --json` and return its manifest.
fn export(args: &[&str], out: &Path) -> Value {
    let o = pakrat()
        .args(["export"])
        .args(args)
        .args(["-o", out.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A PNG as RGBA (8 or 16 bits).
fn read_png(path: &Path) -> Image {
    let mut d = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width, info.height);
    let ch = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        c => panic!("{c:?}"),
    };
    let n = (w * h) as usize;
    let expand = |get: &dyn Fn(usize) -> u16, max: u16| -> Vec<u16> {
        let mut v = Vec::with_capacity(n * 4);
        for p in 0..n {
            let px: [u16; 4] = match ch {
                1 => [get(p), get(p), get(p), max],
                2 => [get(p * 2), get(p * 2), get(p * 2), get(p * 2 + 1)],
                3 => [get(p * 3), get(p * 3 + 1), get(p * 3 + 2), max],
                _ => [get(p * 4), get(p * 4 + 1), get(p * 4 + 2), get(p * 4 + 3)],
            };
            v.extend(px);
        }
        v
    };
    let pixels = if info.bit_depth == png::BitDepth::Sixteen {
        let get = |i: usize| u16::from_be_bytes([buf[i * 2], buf[i * 2 + 1]]);
        Pixels::Rgba16(expand(&get, u16::MAX))
    } else {
        let get = |i: usize| u16::from(buf[i]);
        Pixels::Rgba8(expand(&get, 255).into_iter().map(|x| x as u8).collect())
    };
    Image {
        width: w,
        height: h,
        pixels,
    }
}

/// An EXR's RGBA as f32.
fn read_exr(path: &Path) -> Image {
    use exr::prelude::{ReadChannels, ReadLayers};
    struct Px {
        w: usize,
        v: Vec<f32>,
        h: usize,
    }
    let read = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .rgba_channels(
            |size, _| Px {
                w: size.width(),
                h: size.height(),
                v: vec![0f32; size.width() * size.height() * 4],
            },
            |img: &mut Px, pos, (r, g, b, a): (f32, f32, f32, f32)| {
                let i = (pos.y() * img.w + pos.x()) * 4;
                img.v[i..i + 4].copy_from_slice(&[r, g, b, a]);
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_file(path)
        .unwrap();
    let p = read.layer_data.channel_data.pixels;
    Image {
        width: p.w as u32,
        height: p.h as u32,
        pixels: Pixels::RgbaF32(p.v),
    }
}

/// The `size`² square of an 8-bit image at `(x, y)`.
fn crop(img: &Image, (x, y): (u32, u32), size: u32) -> Image {
    let Pixels::Rgba8(v) = &img.pixels else {
        panic!("8-bit image expected");
    };
    let mut out = Vec::new();
    for row in y..y + size {
        let s = ((row * img.width + x) * 4) as usize;
        out.extend_from_slice(&v[s..s + size as usize * 4]);
    }
    Image {
        width: size,
        height: size,
        pixels: Pixels::Rgba8(out),
    }
}

fn to8(img: &Image) -> Image {
    let n = img.pixels.len();
    let v = (0..n)
        .map(|i| {
            let x = img.pixels.get_f64(i);
            (x.clamp(0.0, 1.0) * 255.0).round() as u8
        })
        .collect();
    Image {
        width: img.width,
        height: img.height,
        pixels: Pixels::Rgba8(v),
    }
}

/// Fixture texture → (its SourceTextures image, channels compared, floor
/// in dB; `f64::INFINITY` for exact). BC4 and EAC R11 hold one channel,
/// BC5 and EAC RG11 two (Z rebuilt: compared on RGB for BC5).
const REFEREE: &[(&str, &str, [bool; 4], f64)] = &[
    ("T_BC1", "rgb", [true, true, true, false], 30.0),
    ("T_BC3", "rgba", [true; 4], 30.0),
    ("T_BC4", "grayscale", [true, false, false, false], 30.0),
    ("T_BC5", "normal", [true, true, true, false], 30.0),
    ("T_BC7", "rgba", [true; 4], 30.0),
    ("T_BGRA8", "rgba", [true; 4], f64::INFINITY),
    ("T_G8", "grayscale", [true; 4], f64::INFINITY),
    ("T_Mips", "rgb", [true, true, true, false], 30.0),
    ("T_Streaming", "streaming", [true, true, true, false], 30.0),
];

/// Android pak textures → (source, channels, floor).
const ANDROID: &[(&str, &str, [bool; 4], f64)] = &[
    ("T_ASTC_4x4", "rgba", [true; 4], 30.0),
    ("T_ASTC_6x6", "rgba", [true; 4], 30.0),
    ("T_ASTC_8x8", "rgba", [true; 4], 30.0),
    ("T_ASTC_10x10", "rgba", [true; 4], 30.0),
    ("T_ASTC_12x12", "rgba", [true; 4], 30.0),
    ("T_ASTC_Normal", "normal", [true, true, false, false], 30.0),
    ("T_EAC_R11", "grayscale", [true, false, false, false], 30.0),
    ("T_EAC_RG11", "normal", [true, true, false, false], 30.0),
    ("T_ETC2_RGB", "rgb", [true, true, true, false], 30.0),
    ("T_ETC2_RGBA", "rgba", [true; 4], 30.0),
];

fn names(m: &Value, key: &str) -> Vec<String> {
    m[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["package"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// PSNR of each `(texture, source, channels, floor)` exported in `out/dir`.
fn measure(
    out: &Path,
    dir: &str,
    src: &Path,
    table: &[(&str, &str, [bool; 4], f64)],
    what: &str,
) -> Vec<String> {
    let mut lines = Vec::new();
    for &(t, s, ch, floor) in table {
        let got = read_png(&out.join(format!("{dir}/{t}.png")));
        let want = read_png(&src.join(format!("{s}.png")));
        let p = psnr(&got, &want, ch);
        lines.push(format!("{what} {t} vs {s}.png: {p:.2} dB"));
        assert!(
            p >= floor,
            "{what} {t} vs {s}.png: {p:.2} dB, floor {floor}"
        );
    }
    lines
}

/// Largest |a − b| over RGB, and PSNR of both clamped to 8 bits.
fn hdr_diff(a: &Image, b: &Image) -> (f64, f64) {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let mut maxd = 0f64;
    for i in 0..a.pixels.len() {
        if i % 4 != 3 {
            maxd = maxd.max((a.pixels.get_f64(i) - b.pixels.get_f64(i)).abs());
        }
    }
    (maxd, psnr(&to8(a), &to8(b), [true, true, true, false]))
}

fn files_of(m: &Value, pkg: &str) -> Vec<(String, u64, u64)> {
    m["written"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["package"].as_str().unwrap().ends_with(pkg))
        .flat_map(|r| r["written"].as_array().unwrap().clone())
        .map(|w| {
            (
                w["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                w["width"].as_u64().unwrap(),
                w["height"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn fixture_textures_export_and_match_their_sources() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut report = Vec::new();
    for version in ["UE5_8", "UE6_0"] {
        let fixtures = dir.join(format!("pak/cue4parse/{version}"));
        let src = fixtures.join("SourceTextures");
        let usmap = fixtures.join("Mappings/CUE4ParseFixtures-Uncompressed.usmap");
        let ue = &version[2..].replace('_', ".");
        for mode in ["Tagged", "Unversioned"] {
            let base = dir.join(format!("iostore/cue4parse/{version}/IoStore/{mode}"));
            let utoc = find(&base.join("Zlib"), "utoc");
            let out = tmp.path().join(format!("{version}-{mode}"));
            let m = export(
                &[
                    utoc.to_str().unwrap(),
                    "--usmap",
                    usmap.to_str().unwrap(),
                    "/Game/Fixtures/Textures/*",
                ],
                &out,
            );
            let what = format!("{version} {mode}");
            assert_eq!(names(&m, "failed"), Vec::<String>::new(), "{what}");
            assert_eq!(names(&m, "skipped"), Vec::<String>::new(), "{what}");
            let tex = "Game/Fixtures/Textures";
            report.extend(measure(&out, tex, &src, REFEREE, &what));
            // Virtual textures, their tiles assembled: T_Virtual is the
            // streaming image; T_UDIM's 2×2 blocks are the four UDIM tiles.
            report.extend(measure(
                &out,
                tex,
                &src,
                &[("T_Virtual", "streaming", [true, true, true, false], 30.0)],
                &what,
            ));
            let udim = read_png(&out.join(format!("{tex}/T_UDIM.png")));
            assert_eq!((udim.width, udim.height), (256, 256), "{what}");
            for (tile, at) in [
                ("1001", (0, 0)),
                ("1002", (128, 0)),
                ("1011", (0, 128)),
                ("1012", (128, 128)),
            ] {
                let want = read_png(&src.join(format!("udim.{tile}.png")));
                let p = psnr(&crop(&udim, at, 128), &want, [true, true, true, false]);
                report.push(format!(
                    "{what} T_UDIM block {tile} vs udim.{tile}.png: {p:.2} dB"
                ));
                assert!(p >= 30.0, "{what} UDIM {tile}: {p}");
            }
            let hdr = read_exr(&src.join("hdr.exr"));
            let (maxd, p8) = hdr_diff(&read_exr(&out.join(format!("{tex}/T_BC6H.exr"))), &hdr);
            report.push(format!(
                "{what} T_BC6H vs hdr.exr: max |diff| {maxd:.4}, 8-bit clamped {p8:.2} dB"
            ));
            assert!(p8 >= 30.0, "{what} BC6H: {p8}");
            // hdr.exr spans 0..16 (hdr-range.txt): BC6H's error stays
            // within 1/8 of that range.
            assert!(maxd <= 2.0, "{what} BC6H: max |diff| {maxd}");
            // Faces, slices: the right number, of the right size.
            let cube = files_of(&m, "T_Cube");
            assert_eq!(cube.len(), 6, "{what} {cube:?}");
            assert!(cube
                .iter()
                .any(|f| f.0 == "T_Cube_NZ.png" && f.1 == 16 && f.2 == 16));
            assert_eq!(files_of(&m, "T_CubeArray").len(), 12, "{what}");
            let arr = files_of(&m, "T_Array");
            assert_eq!(arr.len(), 4, "{what}");
            let vol = files_of(&m, "T_Volume");
            assert_eq!(vol.len(), 4, "{what}");
            assert!(vol.iter().all(|f| (f.1, f.2) == (8, 8)), "{what} {vol:?}");
        }
        // The legacy pak: the same pixels as the zen form.
        let pak = find(&fixtures.join("LegacyPak/Tagged/Zlib"), "pak");
        let out = tmp.path().join(format!("{version}-legacy"));
        let m = export(&[pak.to_str().unwrap(), "--ue-version", ue], &out);
        assert_eq!(names(&m, "failed"), Vec::<String>::new());
        let zen = tmp
            .path()
            .join(format!("{version}-Tagged/Game/Fixtures/Textures"));
        for (f, ch) in [("T_Streaming.png", 0), ("T_BC6H.exr", 1)] {
            let leg = out.join("Game/Fixtures/Textures").join(f);
            let (a, b) = if ch == 0 {
                (read_png(&leg), read_png(&zen.join(f)))
            } else {
                (read_exr(&leg), read_exr(&zen.join(f)))
            };
            assert_eq!(a.pixels, b.pixels, "{version} {f}: legacy vs zen");
        }
        // The Android pak: ASTC, ETC2, EAC.
        let pak = fixtures.join("AndroidPak/CUE4ParseFixtures-Android-Textures.pak");
        let out = tmp.path().join(format!("{version}-android"));
        let m = export(&[pak.to_str().unwrap()], &out);
        assert_eq!(names(&m, "failed"), Vec::<String>::new());
        assert_eq!(m["written"].as_array().unwrap().len(), 10);
        report.extend(measure(
            &out,
            "Game/PlatformFixtures/Android",
            &src,
            ANDROID,
            &format!("{version} Android"),
        ));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn dds_keeps_every_mip_and_surface() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let utoc = find(
        &dir.join("iostore/cue4parse/UE6_0/IoStore/Tagged/Zlib"),
        "utoc",
    );
    let out = tmp.path().join("o");
    let m = export(
        &[
            utoc.to_str().unwrap(),
            "--format",
            "dds",
            "/Game/Fixtures/Textures/T_*",
        ],
        &out,
    );
    assert_eq!(names(&m, "failed"), Vec::<String>::new());
    let tex = out.join("Game/Fixtures/Textures");
    // T_Streaming: 10 DXT1 mips, 512² down to 1²: header + 174,776 bytes.
    let dds = std::fs::read(tex.join("T_Streaming.dds")).unwrap();
    assert_eq!(&dds[..4], b"DDS ");
    let mips: u64 = (0..10)
        .map(|m| ((512u64 >> m).max(1).div_ceil(4)).pow(2) * 8)
        .sum();
    assert_eq!(
        u32::from_le_bytes(dds[28..32].try_into().unwrap()),
        10,
        "mip count"
    );
    assert!(dds.len() as u64 >= mips + 128 && dds.len() as u64 <= mips + 148);
    // A cube: 6 faces of 16² BGRA8.
    let cube = std::fs::read(tex.join("T_Cube.dds")).unwrap();
    assert!(cube.len() as u64 >= 6 * 16 * 16 * 4 + 128);
    // No file outside OUT, and nothing replaced without --force.
    let again = pakrat()
        .args([
            "export",
            utoc.to_str().unwrap(),
            "--format",
            "dds",
            "/Game/Fixtures/Textures/T_BC1",
        ])
        .args(["-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert_eq!(std::fs::read(tex.join("T_Streaming.dds")).unwrap(), dds);
}

#[test]
fn mip_and_layout_options() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let utoc = find(
        &dir.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib"),
        "utoc",
    );
    let out = tmp.path().join("o");
    let m = export(
        &[
            utoc.to_str().unwrap(),
            "--mip",
            "3",
            "--layout",
            "cross",
            "/Game/Fixtures/Textures/T_[SC]*",
        ],
        &out,
    );
    let f = files_of(&m, "T_Streaming");
    assert_eq!(f, [("T_Streaming.png".to_string(), 64, 64)]);
    // A cube's 16² faces as one cross (4 faces wide, 3 high); mip 3 is
    // past its single mip: skipped, and said why.
    let skipped = names(&m, "skipped");
    assert!(skipped.contains(&"T_Cube".to_string()), "{skipped:?}");
    let out2 = tmp.path().join("o2");
    let m = export(
        &[
            utoc.to_str().unwrap(),
            "--layout",
            "cross",
            "/Game/Fixtures/Textures/T_Cube",
        ],
        &out2,
    );
    assert_eq!(files_of(&m, "T_Cube"), [("T_Cube.png".to_string(), 64, 48)]);
}

#[test]
fn a_folder_of_loose_packages_exports_by_package_path() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let utoc = find(
        &dir.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib"),
        "utoc",
    );
    let leg = tmp.path().join("leg");
    let o = pakrat()
        .args(["zen", "to-legacy", "-q", "--ue-version", "5.8", "-o"])
        .args([leg.to_str().unwrap(), utoc.to_str().unwrap()])
        .args([
            "/Game/Fixtures/Textures/T_Streaming",
            "/Game/Fixtures/Textures/T_BC1",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Loose .uasset/.uexp/.ubulk files: chosen by package path.
    let out = tmp.path().join("o");
    let m = export(
        &[leg.to_str().unwrap(), "/Game/Fixtures/Textures/T_Streaming"],
        &out,
    );
    assert_eq!(m["kind"], "folder");
    assert_eq!(
        files_of(&m, "T_Streaming"),
        [("T_Streaming.png".to_string(), 512, 512)]
    );
    assert_eq!(
        m["written"].as_array().unwrap().len(),
        1,
        "only the glob's package"
    );
    let zen = tmp.path().join("z");
    export(
        &[
            utoc.to_str().unwrap(),
            "/Game/Fixtures/Textures/T_Streaming",
        ],
        &zen,
    );
    let f = "Game/Fixtures/Textures/T_Streaming.png";
    assert_eq!(read_png(&out.join(f)).pixels, read_png(&zen.join(f)).pixels);
}
