//! Reference images: PNG/EXR read back what the writers wrote, and the
//! corpus `SourceTextures` read as the texture export will compare them.

use pakrat_texture::{psnr, read_exr, read_png, write_exr, write_png, Error, Image, Pixels};

#[test]
fn png_and_exr_read_back_what_was_written() {
    let img8 = Image {
        width: 3,
        height: 2,
        pixels: Pixels::Rgba8((0..24).map(|i| i * 10).collect()),
    };
    let img16 = Image {
        width: 2,
        height: 2,
        pixels: Pixels::Rgba16((0..16).map(|i| i * 4000).collect()),
    };
    let imgf = Image {
        width: 2,
        height: 1,
        pixels: Pixels::RgbaF32(vec![0.5, -1.0, 1e6, 1.0, 0.0, 2.5, 3.25, 0.125]),
    };
    for img in [&img8, &img16] {
        let mut png = Vec::new();
        write_png(img, &mut png).unwrap();
        assert_eq!(&read_png(&png, 1 << 20).unwrap(), img);
    }
    let mut exr = std::io::Cursor::new(Vec::new());
    write_exr(&imgf, &mut exr).unwrap();
    assert_eq!(read_exr(exr.get_ref(), 1 << 20).unwrap(), imgf);
}

#[test]
fn readers_refuse_large_and_corrupt_images() {
    let img = Image {
        width: 40,
        height: 30,
        pixels: Pixels::Rgba8(vec![7; 40 * 30 * 4]),
    };
    let mut png = Vec::new();
    write_png(&img, &mut png).unwrap();
    assert!(matches!(
        read_png(&png, 1199),
        Err(Error::TooLarge { pixels: 1200, .. })
    ));
    assert!(read_png(&png[..png.len() / 2], 1 << 20).is_err());
    assert!(read_png(b"not a png", 1 << 20).is_err());
    let mut exr = std::io::Cursor::new(Vec::new());
    write_exr(&img, &mut exr).unwrap();
    assert!(matches!(
        read_exr(exr.get_ref(), 1199),
        Err(Error::TooLarge { .. })
    ));
    assert!(read_exr(&exr.get_ref()[..100], 1 << 20).is_err());
}

/// The corpus references (UE5_8 and UE6_0 `SourceTextures`): every PNG
/// reads as RGBA with its size, the palette gray image as gray, and
/// `hdr.exr` spans the range its `hdr-range.txt` gives.
#[test]
fn corpus_source_textures_read() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for version in ["UE5_8", "UE6_0"] {
        let dir = corpus
            .join("pak/cue4parse")
            .join(version)
            .join("SourceTextures");
        let mut pngs = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "png") {
                let img = read_png(&std::fs::read(&path).unwrap(), 1 << 24).unwrap();
                assert!(img.width >= 64 && img.height >= 64, "{}", path.display());
                pngs += 1;
            }
        }
        assert!(pngs >= 9, "{version}: {pngs} PNG files");
        let gray = read_png(&std::fs::read(dir.join("grayscale.png")).unwrap(), 1 << 24).unwrap();
        let Pixels::Rgba8(v) = &gray.pixels else {
            panic!("8-bit")
        };
        assert!(v
            .chunks_exact(4)
            .all(|p| p[0] == p[1] && p[1] == p[2] && p[3] == 255));
        assert!(
            v.chunks_exact(4).any(|p| p[0] != v[0]),
            "not one flat colour"
        );
        // hdr-range.txt: width, height, min and max in ImageMagick's 16-bit
        // quantum (65535 = 1.0), then the largest red, green and blue.
        let range = std::fs::read_to_string(dir.join("hdr-range.txt")).unwrap();
        let f: Vec<f64> = range
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect();
        assert_eq!(f.len(), 7, "{range}");
        let hdr = read_exr(&std::fs::read(dir.join("hdr.exr")).unwrap(), 1 << 24).unwrap();
        assert_eq!((f64::from(hdr.width), f64::from(hdr.height)), (f[0], f[1]));
        let Pixels::RgbaF32(v) = &hdr.pixels else {
            panic!("f32")
        };
        let max_of = |c: usize| {
            v.chunks_exact(4)
                .map(|p| f64::from(p[c]))
                .fold(f64::MIN, f64::max)
        };
        let min = v
            .chunks_exact(4)
            .flat_map(|p| &p[..3])
            .map(|&x| f64::from(x))
            .fold(f64::MAX, f64::min);
        assert!(
            (min - f[2] / 65535.0).abs() <= 1e-3,
            "{version}: min {min} vs {}",
            f[2]
        );
        let max = max_of(0).max(max_of(1)).max(max_of(2));
        assert!(
            (max - f[3] / 65535.0).abs() <= 1e-3 * max,
            "{version}: max {max} vs {}",
            f[3]
        );
        for c in 0..3 {
            assert_eq!(
                max_of(c),
                f[4 + c],
                "{version}: largest value of channel {c}"
            );
        }
        assert_eq!(psnr(&hdr, &hdr, [true; 4]), f64::INFINITY);
    }
}
