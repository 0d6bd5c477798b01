//! Handlers for redirect compression: `info` on a .uz/.uz2/.uz3 file,
//! `compress` and `decompress` (batch, parallel, atomic outputs).

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use pakrat_io::fsutil::OutputDir;
use pakrat_io::text::show;
use pakrat_io::Source;
use pakrat_uz::{CompressOptions, Limits, UzFormat, UzSignature};
use serde::Serialize;

use crate::args::*;
use crate::output::{human_size, print_json};

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 * 1000.0 / whole as f64).round() / 10.0
    }
}

fn tag_of(data: &[u8]) -> Option<u32> {
    data.get(..4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn is_package_tag(tag: Option<u32>) -> bool {
    matches!(tag, Some(0x9E2A_83C1 | 0x9E2A_83C2))
}

fn describe_format(f: UzFormat, sig: Option<UzSignature>) -> String {
    match (f, sig) {
        (UzFormat::Uz, Some(UzSignature::S1234)) => {
            "uz (UE1), signature 1234: RLE → BWT → MTF → Huffman".into()
        }
        (UzFormat::Uz, _) => "uz (UE1), signature 5678: RLE → BWT → MTF → RLE → Huffman".into(),
        (UzFormat::Uz2, _) => "uz2 (UE2): 32 KiB chunks, each one zlib stream".into(),
        (UzFormat::Uz3, _) => "uz3 (UE3): magic 0x162E, size, one zlib stream".into(),
    }
}

#[derive(Serialize)]
struct InfoOut {
    file: PathBuf,
    #[serde(flatten)]
    header: pakrat_uz::Info,
    compressed_size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    uncompressed_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ratio_percent: Option<f64>,
    /// First u32 of the decoded data.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_tag: Option<String>,
    is_package: bool,
    /// Where `decompress` would write (sanitised stored name or derived name).
    #[serde(skip_serializing_if = "Option::is_none")]
    output_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unsafe_stored_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Output name for decoding `input`: the sanitised stored name, else the
/// input's name without its .uz/.uz2/.uz3 extension. Returns the name and,
/// when the stored name was refused, why.
fn output_name(input: &Path, stored: Option<&str>) -> (String, Option<String>) {
    let derived = || {
        let name = input
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "decompressed".into());
        pakrat_uz::derived_name(&name)
    };
    match stored {
        Some(s) => match pakrat_uz::safe_file_name(s) {
            Ok(n) => (n, None),
            Err(e) => (derived(), Some(e.to_string())),
        },
        None => (derived(), None),
    }
}

/// `info` for a redirect file: headers, then a full decode for sizes.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let src = Source::open(&a.file)?;
    let header = pakrat_uz::inspect(&src).map_err(|e| e.in_file(&a.file))?;
    let decoded = pakrat_uz::decompress(&src);
    let (name, unsafe_why) = output_name(&a.file, header.original_name.as_deref());
    let mut out = InfoOut {
        file: a.file.clone(),
        header,
        compressed_size: src.len() as u64,
        uncompressed_size: None,
        ratio_percent: None,
        content_tag: None,
        is_package: false,
        output_name: Some(name),
        unsafe_stored_name: unsafe_why,
        error: None,
    };
    match &decoded {
        Ok(d) => {
            let n = d.data.len() as u64;
            out.uncompressed_size = Some(n);
            out.ratio_percent = Some(percent(src.len() as u64, n));
            out.content_tag = tag_of(&d.data).map(|t| format!("{t:#010X}"));
            out.is_package = d.is_package();
            // The candidate that decoded is the format to report.
            out.header = d.info.clone();
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    if a.out.json {
        print_json(&out)?;
    } else {
        let h = &out.header;
        println!("file:          {}", a.file.display());
        println!("format:        {}", describe_format(h.format, h.signature));
        if let Some(n) = &h.original_name {
            println!("original name: {n:?}");
        }
        if let Some(c) = h.chunks {
            println!("chunks:        {c}");
        }
        if let Some(d) = h.declared_size {
            println!("declared size: {d} bytes");
        }
        println!(
            "compressed:    {} bytes ({})",
            out.compressed_size,
            human_size(out.compressed_size)
        );
        if let (Some(u), Some(r)) = (out.uncompressed_size, out.ratio_percent) {
            println!(
                "uncompressed:  {u} bytes ({}); compressed is {r}% of it",
                human_size(u)
            );
        }
        if let Some(t) = &out.content_tag {
            println!(
                "content:       {}",
                if out.is_package {
                    format!("Unreal package (tag {t})")
                } else {
                    format!("not an Unreal package (first u32 {t})")
                }
            );
        }
        if let (Some(n), None) = (&out.output_name, &out.error) {
            println!("decompresses to: {n}");
        }
        if let Some(w) = &out.unsafe_stored_name {
            println!("warning:       {}", show(w));
        }
        if let Some(e) = &out.error {
            println!("error:         {}", show(&e.to_string()));
        }
    }
    Ok(if out.error.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Default format from the package version (UEViewer's split: below 100 is
/// UE1, below 180 UE2, otherwise UE3).
fn default_format(data: &[u8]) -> Result<UzFormat> {
    if !is_package_tag(tag_of(data)) {
        return Err(anyhow!(
            "not an Unreal package, so no default format: pass --format uz|uz2|uz3"
        ));
    }
    let ver = data
        .get(4..6)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .unwrap_or(0);
    Ok(match ver {
        0..=99 => UzFormat::Uz,
        100..=179 => UzFormat::Uz2,
        _ => UzFormat::Uz3,
    })
}

#[derive(Serialize, Default)]
struct CompressOut {
    input: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<UzFormat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signature: Option<UzSignature>,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_name: Option<String>,
    input_size: u64,
    output_size: u64,
    ratio_percent: f64,
    larger_than_input: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn out_dir_for(input: &Path, output: Option<&Path>, force: bool) -> Result<OutputDir> {
    let dir = match output {
        Some(d) => d.to_path_buf(),
        None => match input.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    Ok(OutputDir::create(&dir, force)?)
}

fn compress_one(input: &Path, a: &CompressArgs, sig: UzSignature) -> Result<CompressOut> {
    let name = input
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("{}: file name is not valid UTF-8", input.display()))?
        .to_string();
    let src = Source::open(input)?;
    let format = match &a.format {
        Some(f) => UzFormat::from_name(f).ok_or_else(|| anyhow!("unknown format {f}"))?,
        None => default_format(&src).with_context(|| input.display().to_string())?,
    };
    let mut opts = CompressOptions::new(format, name.clone());
    opts.signature = sig;
    let bytes = pakrat_uz::compress(&src, &opts).map_err(|e| e.in_file(input))?;
    let dir = out_dir_for(input, a.output.as_deref(), a.force)?;
    let out_name = format!("{name}.{}", format.extension());
    let path = dir.write(&out_name, &bytes)?;
    let (i, o) = (src.len() as u64, bytes.len() as u64);
    Ok(CompressOut {
        input: input.to_path_buf(),
        output: Some(path),
        format: Some(format),
        signature: (format == UzFormat::Uz).then_some(sig),
        original_name: (format == UzFormat::Uz).then_some(name),
        input_size: i,
        output_size: o,
        ratio_percent: percent(o, i),
        larger_than_input: o > i,
        error: None,
    })
}

/// Bytes of the input files (for a progress bar).
fn input_bytes(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}

/// Advances a progress bar by an input file's size when one file is done
/// (dropped), whatever its outcome.
struct Tick<'a>(&'a Option<indicatif::ProgressBar>, &'a Path);

impl Drop for Tick<'_> {
    fn drop(&mut self) {
        if let Some(b) = self.0 {
            b.inc(std::fs::metadata(self.1).map_or(0, |m| m.len()));
        }
    }
}

/// Inputs that would write the same output (same file name into one folder).
fn clashes<'a>(keys: impl Iterator<Item = (PathBuf, &'a Path)>) -> HashMap<PathBuf, Vec<&'a Path>> {
    let mut seen: HashMap<PathBuf, Vec<&Path>> = HashMap::new();
    for (k, input) in keys {
        seen.entry(k).or_default().push(input);
    }
    seen.retain(|_, v| v.len() > 1);
    seen
}

/// The exit code of a batch: 2 when an input could not be read at all (as
/// every command that cannot open its input), 1 when some file failed.
fn finish<T: Serialize>(
    results: &[T],
    inputs: &[PathBuf],
    failed: usize,
    json: bool,
) -> Result<ExitCode> {
    if json {
        // One object, as every command (docs/json.md).
        print_json(&serde_json::json!({ "files": results }))?;
    }
    let unreadable = inputs
        .iter()
        .filter(|p| std::fs::File::open(p).is_err() || !p.is_file())
        .count();
    Ok(if unreadable > 0 {
        eprintln!("pakrat: {failed} file(s) failed ({unreadable} could not be read)");
        ExitCode::from(2)
    } else if failed > 0 {
        eprintln!("pakrat: {failed} file(s) failed");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `compress FILE... [--format uz|uz2|uz3] [--signature 1234|5678] [-o DIR] [--force]`.
pub fn compress(a: &CompressArgs) -> Result<ExitCode> {
    let sig = if a.signature == "1234" {
        UzSignature::S1234
    } else {
        UzSignature::S5678
    };
    // Two inputs with the same file name going to one folder would race.
    let target = |p: &Path| {
        let dir = a
            .output
            .clone()
            .or_else(|| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        dir.join(p.file_name().unwrap_or_default())
    };
    let dup = clashes(a.files.iter().map(|p| (target(p), p.as_path())));
    // Existing outputs are refused once, before anything is written. An
    // input whose format cannot be told fails on its own below.
    crate::cmd::common::refuse_existing_paths(
        a.force,
        a.files.iter().filter_map(|input| {
            let format = match &a.format {
                Some(f) => UzFormat::from_name(f)?,
                None => default_format(&Source::open(input).ok()?).ok()?,
            };
            let t = target(input);
            let name = t.file_name()?.to_str()?.to_string();
            Some(t.with_file_name(format!("{name}.{}", format.extension())))
        }),
    )?;
    let bar = crate::cmd::common::progress(input_bytes(&a.files), a.out.json, "compressing");
    let results: Vec<CompressOut> = crate::cmd::common::par_map(&a.files, |input| {
        let _tick = Tick(&bar, input);
        let r = if dup.contains_key(&target(input)) {
            Err(anyhow!(
                "{}: another input has the same file name and output folder",
                input.display()
            ))
        } else {
            compress_one(input, a, sig)
        };
        r.unwrap_or_else(|e| CompressOut {
            input: input.clone(),
            error: Some(crate::output::error_text(&e)),
            ..CompressOut::default()
        })
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut failed = 0;
    for r in &results {
        if let Some(e) = &r.error {
            failed += 1;
            eprintln!("pakrat: error: {}", show(e));
            continue;
        }
        let out = r.output.as_deref().unwrap_or(Path::new(""));
        if r.larger_than_input {
            eprintln!(
                "pakrat: warning: {} ({} bytes) is larger than its input ({} bytes){}",
                out.display(),
                r.output_size,
                r.input_size,
                if r.format == Some(UzFormat::Uz) {
                    "; UT clients before v469 crash on such .uz files: serve the package uncompressed"
                } else {
                    ""
                }
            );
        }
        if !a.out.json {
            let kind = match (r.format, r.signature) {
                (Some(f), Some(s)) => format!("{f} {}", s.value()),
                (Some(f), None) => f.to_string(),
                _ => String::new(),
            };
            println!(
                "{} -> {} ({kind}): {} -> {} bytes ({}%)",
                r.input.display(),
                out.display(),
                r.input_size,
                r.output_size,
                r.ratio_percent
            );
        }
    }
    finish(&results, &a.files, failed, a.out.json)
}

#[derive(Serialize, Default)]
struct DecompressOut {
    input: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<UzFormat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signature: Option<UzSignature>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stored_name: Option<String>,
    input_size: u64,
    output_size: u64,
    is_package: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// A writer that counts bytes and keeps the first four.
struct Probe<'a> {
    inner: &'a mut dyn Write,
    head: Vec<u8>,
    n: u64,
}

impl Write for Probe<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let want = 4usize.saturating_sub(self.head.len()).min(n);
        self.head.extend_from_slice(&buf[..want]);
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

struct Planned {
    src: Source,
    info: pakrat_uz::Info,
    name: String,
    warning: Option<String>,
    dir: PathBuf,
}

fn plan_one(input: &Path, a: &DecompressArgs) -> Result<Planned> {
    let src = Source::open(input)?;
    let info = pakrat_uz::inspect(&src).map_err(|e| e.in_file(input))?;
    let (name, why) = output_name(input, info.original_name.as_deref());
    let warning = why.map(|w| format!("{w}; writing {name:?} instead"));
    let dir = match &a.output {
        Some(d) => d.clone(),
        None => match input.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    Ok(Planned {
        src,
        info,
        name,
        warning,
        dir,
    })
}

fn decompress_one(input: &Path, p: &Planned, force: bool) -> Result<DecompressOut> {
    let dir = OutputDir::create(&p.dir, force)?;
    let target = dir.resolve(&p.name)?;
    if let (Ok(a), Ok(b)) = (std::fs::canonicalize(&target), std::fs::canonicalize(input)) {
        if a == b {
            return Err(anyhow!(
                "{}: the stored name {:?} would overwrite the input itself",
                input.display(),
                p.name
            ));
        }
    }
    let mut head = Vec::new();
    let mut size = 0;
    let mut info = p.info.clone();
    let path = dir.write_with(&p.name, |w| {
        let mut probe = Probe {
            inner: w,
            head: Vec::new(),
            n: 0,
        };
        let (i, n) = pakrat_uz::decompress_to(&p.src, &mut probe, &Limits::default())
            .map_err(|e| io::Error::other(e.in_file(input)))?;
        info = i;
        head = probe.head;
        size = n;
        Ok(())
    });
    let path = path.map_err(|e| match e {
        // Show the decoder's message, not the output path it was writing.
        pakrat_io::Error::Io { source, .. } if source.get_ref().is_some() => {
            anyhow!(
                "{}",
                source.get_ref().map(|e| e.to_string()).unwrap_or_default()
            )
        }
        e => anyhow!(e),
    })?;
    Ok(DecompressOut {
        input: input.to_path_buf(),
        output: Some(path),
        format: Some(info.format),
        signature: info.signature,
        stored_name: info.original_name.clone(),
        input_size: p.src.len() as u64,
        output_size: size,
        is_package: is_package_tag(tag_of(&head)),
        warning: p.warning.clone(),
        error: None,
    })
}

/// Which planned inputs decode whole in memory (`.uz`, signature 5678 or
/// 1234): those are run one at a time.
fn whole_file_decodes(plans: &[Result<Planned>]) -> Vec<bool> {
    plans
        .iter()
        .map(|p| matches!(p, Ok(p) if p.info.format == UzFormat::Uz))
        .collect()
}

/// `decompress FILE... [-o DIR] [--force]`: output names come from the
/// `.uz` header (sanitised) or the input name without its extension.
pub fn decompress(a: &DecompressArgs) -> Result<ExitCode> {
    // Read headers first so that name clashes are known before writing.
    let plans: Vec<Result<Planned>> = crate::cmd::common::par_map(&a.files, |f| plan_one(f, a));
    let key = |p: &Planned| {
        let dir = std::fs::canonicalize(&p.dir).unwrap_or_else(|_| p.dir.clone());
        dir.join(p.name.to_lowercase())
    };
    let dup = clashes(
        a.files
            .iter()
            .zip(&plans)
            .filter_map(|(f, p)| p.as_ref().ok().map(|p| (key(p), f.as_path()))),
    );
    let one = |input: &PathBuf, plan: &Result<Planned>| {
        let r = match plan {
            Err(e) => Err(anyhow!(crate::output::error_text(e))),
            Ok(p) if dup.contains_key(&key(p)) => Err(anyhow!(
                "{}: another input also decompresses to {:?} in the same folder",
                input.display(),
                p.name
            )),
            Ok(p) => decompress_one(input, p, a.force),
        };
        r.unwrap_or_else(|e| DecompressOut {
            input: input.clone(),
            error: Some(crate::output::error_text(&e)),
            ..DecompressOut::default()
        })
    };
    // A `.uz` (5678/1234) is decoded whole in memory, up to its 1 GiB cap:
    // those run one at a time, whatever --threads (six small bombs in
    // parallel once took 6.6 GiB); `.uz2`/`.uz3` stream in constant memory
    // and run in parallel. Results keep the input order.
    crate::cmd::common::refuse_existing_paths(
        a.force,
        plans
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .map(|p| p.dir.join(&p.name)),
    )?;
    let bar = crate::cmd::common::progress(input_bytes(&a.files), a.out.json, "decompressing");
    let one = |input: &PathBuf, plan: &Result<Planned>| {
        let _tick = Tick(&bar, input);
        one(input, plan)
    };
    let whole = whole_file_decodes(&plans);
    let idx: Vec<usize> = (0..a.files.len()).collect();
    let mut results: Vec<Option<DecompressOut>> =
        crate::cmd::common::par_map(&idx, |&k| (!whole[k]).then(|| one(&a.files[k], &plans[k])));
    for (k, (input, plan)) in a.files.iter().zip(&plans).enumerate() {
        if whole[k] {
            results[k] = Some(one(input, plan));
        }
    }
    let results: Vec<DecompressOut> = results.into_iter().flatten().collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut failed = 0;
    for r in &results {
        if let Some(e) = &r.error {
            failed += 1;
            eprintln!("pakrat: error: {}", show(e));
            continue;
        }
        if let Some(w) = &r.warning {
            eprintln!("pakrat: warning: {}: {}", r.input.display(), show(w));
        }
        if !a.out.json {
            let kind = match (r.format, r.signature) {
                (Some(f), Some(s)) => format!("{f} {}", s.value()),
                (Some(f), None) => f.to_string(),
                _ => String::new(),
            };
            println!(
                "{} -> {} ({kind}): {} -> {} bytes{}",
                r.input.display(),
                r.output.as_deref().unwrap_or(Path::new("")).display(),
                r.input_size,
                r.output_size,
                if r.is_package {
                    ", Unreal package"
                } else {
                    ", not an Unreal package"
                }
            );
        }
    }
    finish(&results, &a.files, failed, a.out.json)
}
