//! Decode speed per pixel format, and the decoder crates compared.
//!
//! ```text
//! cargo run --release -p pakrat-texture --example decode_bench [-- SIZE [RUNS [FORMAT...]]]
//! ```
//!
//! For each format (or only the FORMATs named, `PF_BC5+Z` for BC5 with Z
//! rebuilt): one SIZE×SIZE slice (default 2048) of synthetic blocks,
//! decoded by `pakrat_texture::decode` on one core and on all cores, by the
//! chosen decoder crate called directly (its own whole-image function, or a
//! plain loop over its block function writing at a pitch as many channels
//! as it decodes), and by the alternative crate where there is one. Figures
//! are the best of RUNS runs (default 5), in megapixels per second.
//!
//! First table: one core. Figures are the calling thread's CPU time (on
//! Linux), pakrat and the direct call timed in turn, so that a busy machine
//! slows neither more than the other. "ratio" is pakrat on one core over
//! the chosen crate direct. "agree" compares the alternative's output with
//! the chosen one: PSNR (dB, inf = identical) and the largest channel
//! difference.
//!
//! Second table: all cores (`parallel: true`). Wall time of the serial and
//! of the parallel decode, the CPU seconds the whole process spent in the
//! best parallel run and megapixels per CPU-second (on a machine shared
//! with other work the wall time says little; the CPU time says what the
//! parallel decode costs), the scaling (1-core wall / all-cores wall) and
//! the 1-minute load average when the row was measured.
//!
//! Block data: random bytes, which are valid blocks for BC1–BC5, ETC and
//! EAC and cover all modes of BC6H and BC7; for ASTC, random blocks that
//! astc-decode accepts (rejection sampling), so that every block decodes a
//! real mode instead of the error colour.

use pakrat_texture::{decode, psnr, DecodeOptions, Image, PixelFormat, Pixels};
use std::time::Instant;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn fill(&mut self, buf: &mut [u8]) {
        buf.iter_mut().for_each(|b| *b = self.next() as u8);
    }
}

fn blocks_for(f: PixelFormat, size: u32, rng: &mut Rng) -> Vec<u8> {
    let n = f.slice_size(size, size).unwrap() as usize;
    let mut data = vec![0u8; n];
    if let PixelFormat::Astc { bw, bh, .. } = f {
        let fp = astc_decode::Footprint::new(u32::from(bw), u32::from(bh));
        // A pool of valid blocks, then drawn at random.
        let mut pool = Vec::new();
        while pool.len() < 4096 {
            let mut b = [0u8; 16];
            rng.fill(&mut b);
            if astc_decode::astc_decode_block(&b, fp, |_, _, _| {}) && b[0] != 0xFC {
                pool.push(b);
            }
        }
        for chunk in data.chunks_exact_mut(16) {
            chunk.copy_from_slice(&pool[rng.next() as usize % pool.len()]);
        }
    } else {
        rng.fill(&mut data);
    }
    data
}

/// CPU time of the calling thread in seconds (Linux), so that one-core
/// figures do not count the time other processes hold the core; wall time
/// elsewhere.
#[cfg(target_os = "linux")]
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Best thread CPU time of `runs` calls, in seconds (one core).
fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = thread_cpu();
            f();
            thread_cpu() - t
        })
        .fold(f64::INFINITY, f64::min)
}

/// CPU time of the whole process (all threads) in seconds (Linux; wall
/// time elsewhere).
#[cfg(target_os = "linux")]
fn process_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
fn process_cpu() -> f64 {
    thread_cpu()
}

/// The 1-minute load average (`/proc/loadavg`), NaN where there is none.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Best wall time of `runs` calls, and the process CPU time of that run,
/// in seconds.
fn best_wall(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    (0..runs)
        .map(|_| {
            let (t, c) = (Instant::now(), process_cpu());
            f();
            (t.elapsed().as_secs_f64(), process_cpu() - c)
        })
        .fold(
            (f64::INFINITY, f64::NAN),
            |a, b| if b.0 < a.0 { b } else { a },
        )
}

/// Best of `runs` for two closures timed in turn (so both see the same
/// machine load), thread CPU time.
fn best_pair(runs: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let (mut ba, mut bb) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..runs {
        ba = ba.min(best(1, &mut a));
        bb = bb.min(best(1, &mut b));
    }
    (ba, bb)
}

/// RGBA8 image from `texture2ddecoder`'s packed BGRA `u32`s.
fn from_bgra(size: u32, px: &[u32]) -> Image {
    let mut v = Vec::with_capacity(px.len() * 4);
    for p in px {
        let [b, g, r, a] = p.to_le_bytes();
        v.extend_from_slice(&[r, g, b, a]);
    }
    Image {
        width: size,
        height: size,
        pixels: Pixels::Rgba8(v),
    }
}

/// `bcdec_rs` called directly: a loop over blocks writing `ch` channels
/// per pixel at a pitch, as its documentation shows.
fn bcdec_direct(
    size: u32,
    data: &[u8],
    bytes: usize,
    ch: usize,
    f: fn(&[u8], &mut [u8], usize),
) -> Vec<u8> {
    let w = size as usize;
    let mut out = vec![0u8; w * w * ch];
    let bx = w / 4;
    for (i, b) in data.chunks_exact(bytes).enumerate() {
        let (x, y) = ((i % bx) * 4, (i / bx) * 4);
        f(b, &mut out[(y * w + x) * ch..], w * ch);
    }
    out
}

fn bc6h_direct(size: u32, data: &[u8]) -> Vec<f32> {
    let w = size as usize;
    let mut out = vec![0f32; w * w * 3];
    let bx = w / 4;
    for (i, b) in data.chunks_exact(16).enumerate() {
        let (x, y) = ((i % bx) * 4, (i / bx) * 4);
        bcdec_rs::bc6h_float(b, &mut out[(y * w + x) * 3..], w * 3, false);
    }
    out
}

type T2dWhole = fn(&[u8], usize, usize, &mut [u32]) -> Result<(), &'static str>;

fn t2d_whole(size: u32, data: &[u8], f: T2dWhole) -> Vec<u32> {
    let w = size as usize;
    let mut out = vec![0u32; w * w];
    f(data, w, w, &mut out).unwrap();
    out
}

fn astc_direct(size: u32, data: &[u8], bw: u8, bh: u8) -> Vec<u8> {
    let w = size as usize;
    let mut out = vec![0u8; w * w * 4];
    let fp = astc_decode::Footprint::new(u32::from(bw), u32::from(bh));
    astc_decode::astc_decode(data, size, size, fp, |x, y, c| {
        out[(y as usize * w + x as usize) * 4..][..4].copy_from_slice(&c);
    })
    .unwrap();
    out
}

/// The chosen crate called directly (time, and its output as an image
/// where it is RGBA8 for the agreement check).
/// A timed closure and the crate it calls.
type Direct = (Box<dyn Fn()>, &'static str);

fn chosen(f: PixelFormat, size: u32, data: &[u8]) -> Option<Direct> {
    use PixelFormat::*;
    let d = data.to_vec();
    Some(match f {
        Dxt1 => (
            Box::new(move || drop(bcdec_direct(size, &d, 8, 4, bcdec_rs::bc1))),
            "bcdec_rs",
        ),
        Dxt3 => (
            Box::new(move || drop(bcdec_direct(size, &d, 16, 4, bcdec_rs::bc2))),
            "bcdec_rs",
        ),
        Dxt5 => (
            Box::new(move || drop(bcdec_direct(size, &d, 16, 4, bcdec_rs::bc3))),
            "bcdec_rs",
        ),
        Bc7 => (
            Box::new(move || drop(bcdec_direct(size, &d, 16, 4, bcdec_rs::bc7))),
            "bcdec_rs",
        ),
        Bc4 => (
            Box::new(move || {
                drop(bcdec_direct(size, &d, 8, 1, |s, o, p| {
                    bcdec_rs::bc4(s, o, p, false)
                }))
            }),
            "bcdec_rs",
        ),
        Bc5 => (
            Box::new(move || {
                drop(bcdec_direct(size, &d, 16, 2, |s, o, p| {
                    bcdec_rs::bc5(s, o, p, false)
                }))
            }),
            "bcdec_rs",
        ),
        Bc6h => (Box::new(move || drop(bc6h_direct(size, &d))), "bcdec_rs"),
        Etc1 => (
            Box::new(move || drop(t2d_whole(size, &d, texture2ddecoder::decode_etc1))),
            "texture2ddecoder",
        ),
        Etc2Rgb => (
            Box::new(move || drop(t2d_whole(size, &d, texture2ddecoder::decode_etc2_rgb))),
            "texture2ddecoder",
        ),
        Etc2Rgba => (
            Box::new(move || drop(t2d_whole(size, &d, texture2ddecoder::decode_etc2_rgba8))),
            "texture2ddecoder",
        ),
        // EAC is decoded by hand (texture2ddecoder misplaces its pixels):
        // the ratio is to texture2ddecoder's, a speed reference only.
        Etc2R11Eac => (
            Box::new(move || drop(t2d_whole(size, &d, texture2ddecoder::decode_eacr))),
            "texture2ddecoder (speed only)",
        ),
        Etc2Rg11Eac => (
            Box::new(move || drop(t2d_whole(size, &d, texture2ddecoder::decode_eacrg))),
            "texture2ddecoder (speed only)",
        ),
        Astc { bw, bh, .. } => (
            Box::new(move || drop(astc_direct(size, &d, bw, bh))),
            "astc-decode",
        ),
        _ => return None,
    })
}

/// The alternative crate's output as an RGBA8 image in pakrat's channel
/// mapping, and its direct decode time; `None` where there is none.
fn alternative(
    f: PixelFormat,
    size: u32,
    data: &[u8],
    runs: usize,
) -> Option<(&'static str, f64, Image)> {
    use texture2ddecoder as t;
    use PixelFormat::*;
    let whole: T2dWhole = match f {
        Dxt1 => t::decode_bc1a,
        Dxt3 => t::decode_bc2,
        Dxt5 => t::decode_bc3,
        Bc4 => t::decode_bc4,
        Bc5 => t::decode_bc5,
        Bc7 => t::decode_bc7,
        Astc { .. } => return astc_alternative(f, size, data, runs),
        _ => return None,
    };
    let secs = best(runs, || drop(t2d_whole(size, data, whole)));
    let mut img = from_bgra(size, &t2d_whole(size, data, whole));
    if matches!(f, Bc4 | Bc5) {
        // texture2ddecoder leaves blue (and for BC4 green) at 0, alpha at
        // 255; pakrat's BC4 is gray (R = G = B), its BC5 R, G with B 0.
        if let Pixels::Rgba8(v) = &mut img.pixels {
            for px in v.chunks_exact_mut(4) {
                px[2] = if f == Bc4 { px[0] } else { 0 };
                if f == Bc4 {
                    px[1] = px[0];
                }
            }
        }
    }
    Some(("texture2ddecoder", secs, img))
}

fn astc_alternative(
    f: PixelFormat,
    size: u32,
    data: &[u8],
    runs: usize,
) -> Option<(&'static str, f64, Image)> {
    let PixelFormat::Astc { bw, bh, .. } = f else {
        return None;
    };
    let (bw, bh) = (usize::from(bw), usize::from(bh));
    let w = size as usize;
    let run = || {
        // texture2ddecoder's ASTC panics on some blocks (integer overflow in
        // debug builds); the bench blocks are valid ones.
        let mut out = vec![0u32; w * w];
        texture2ddecoder::decode_astc(data, w, w, bw, bh, &mut out).map(|_| out)
    };
    let out = std::panic::catch_unwind(run).ok()?.ok()?;
    let secs = best(runs, || drop(run()));
    Some(("texture2ddecoder", secs, from_bgra(size, &out)))
}

fn mpx(size: u32, secs: f64) -> f64 {
    f64::from(size) * f64::from(size) / secs / 1e6
}

fn max_diff(a: &Image, b: &Image) -> f64 {
    (0..a.pixels.len())
        .map(|i| (a.pixels.get_f64(i) - b.pixels.get_f64(i)).abs())
        .fold(0.0, f64::max)
        * 255.0
}

/// The formats measured: every decoded one, and BC5 once more with Z
/// rebuilt (`true`).
fn all_formats() -> Vec<(PixelFormat, bool)> {
    use PixelFormat::*;
    let mut v: Vec<(PixelFormat, bool)> = [
        B8G8R8A8,
        G8,
        G16,
        R16F,
        FloatRGBA,
        A32B32G32R32F,
        Dxt1,
        Dxt3,
        Dxt5,
        Bc4,
        Bc5,
    ]
    .into_iter()
    .map(|f| (f, false))
    .collect();
    v.push((Bc5, true));
    v.extend(
        [Bc6h, Bc7, Etc1, Etc2Rgb, Etc2Rgba, Etc2R11Eac, Etc2Rg11Eac]
            .into_iter()
            .map(|f| (f, false)),
    );
    for (bw, bh) in [(4, 4), (6, 6), (8, 8), (10, 10), (12, 12)] {
        v.push((Astc { bw, bh, hdr: false }, false));
    }
    v
}

/// One row of the parallel table: 1-core wall, all-cores wall, process CPU
/// seconds of the parallel run, the load average then.
struct Par {
    serial_wall: f64,
    wall: f64,
    cpu: f64,
    load: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2048);
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    // Further arguments: format names to measure (PF_BC5+Z for BC5 with Z).
    let only: Vec<&String> = args.iter().skip(3).collect();
    let threads = rayon::current_num_threads();
    println!(
        "{size}x{size}, best of {runs} runs, {threads} threads, load average {:.2} at the start; Mpx/s (MB/s of RGBA8 = 4 x Mpx/s)",
        load_average()
    );
    println!(
        "{:<18} {:>9} {:>9} {:>6}  {:<16} {:>9} {:>8} {:>6}  alt crate",
        "format", "1 core", "direct", "ratio", "chosen", "alt", "agree", "maxd"
    );
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let serial = DecodeOptions {
        parallel: false,
        ..DecodeOptions::default()
    };
    let par = DecodeOptions::default();
    let mut par_rows = Vec::new();
    for (f, z) in all_formats() {
        let name = format!("{}{}", f.ue_name(), if z { "+Z" } else { "" });
        let data = blocks_for(f, size, &mut rng);
        if !only.is_empty() && !only.iter().any(|o| **o == name) {
            continue;
        }
        let serial = DecodeOptions {
            rebuild_normal_z: z,
            ..serial.clone()
        };
        let par = DecodeOptions {
            rebuild_normal_z: z,
            ..par.clone()
        };
        let ours = || drop(decode(f, size, size, &data, &serial).unwrap());
        let (serial_wall, _) = best_wall(runs, ours);
        let (wall, cpu) = best_wall(runs, || drop(decode(f, size, size, &data, &par).unwrap()));
        par_rows.push((
            name.clone(),
            Par {
                serial_wall,
                wall,
                cpu,
                load: load_average(),
            },
        ));
        let (one, direct, chosen_name) = match chosen(f, size, &data) {
            Some((run, n)) => {
                let (one, direct) = best_pair(runs, ours, run);
                (one, direct, n)
            }
            None => (best(runs, ours), f64::NAN, "(by hand)"),
        };
        let ours = decode(f, size, size, &data, &serial).unwrap();
        let alt = if z {
            None
        } else {
            alternative(f, size, &data, runs)
        };
        let (alt_speed, agree, maxd, alt_name) = match alt {
            Some((n, secs, img)) => {
                let p = psnr(&ours, &img, [true; 4]);
                (
                    format!("{:.1}", mpx(size, secs)),
                    format!("{p:.1}"),
                    format!("{:.0}", max_diff(&ours, &img)),
                    n,
                )
            }
            None => ("-".into(), "-".into(), "-".into(), ""),
        };
        let (direct_s, ratio_s) = if direct.is_nan() {
            ("-".to_string(), "-".to_string())
        } else {
            (
                format!("{:.1}", mpx(size, direct)),
                format!("{:.0}%", direct / one * 100.0),
            )
        };
        println!(
            "{name:<18} {:>9.1} {direct_s:>9} {ratio_s:>6}  {chosen_name:<16} {alt_speed:>9} {agree:>8} {maxd:>6}  {alt_name}",
            mpx(size, one),
        );
    }
    println!();
    println!(
        "all cores ({threads} threads, parallel: true): wall times, the process CPU time of the parallel run, and the scaling 1-core wall / all-cores wall"
    );
    println!(
        "{:<18} {:>10} {:>10} {:>9} {:>11} {:>8} {:>6}",
        "format", "1c wall", "all wall", "CPU s", "Mpx/CPU-s", "scaling", "load"
    );
    for (name, p) in par_rows {
        println!(
            "{name:<18} {:>10.1} {:>10.1} {:>9.4} {:>11.1} {:>7.2}x {:>6.2}",
            mpx(size, p.serial_wall),
            mpx(size, p.wall),
            p.cpu,
            mpx(size, p.cpu),
            p.serial_wall / p.wall,
            p.load
        );
    }
}
