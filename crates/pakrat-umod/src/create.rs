//! Building a UMOD from a folder (what `ucc master` does).
//!
//! Members are `System\Manifest.ini` and `System\Manifest.int` (flags 3), then
//! every `Copy=`/`File=` source the manifest names, in group order (flags from
//! the record, else 3 for `Copy=` and 0 for `File=`). Payloads are packed back
//! to back from offset 0 (optionally aligned), then the directory, then the
//! trailer, exactly like the real files in the corpus (`classic.md` §2.6–2.7).
//! The output depends only on the input bytes: no timestamps, fixed order.
//!
//! With an order template (`--order-from original.umod`), member order, names
//! and flags are copied from the original; when every size matches, its
//! offsets and directory offset are reused too (gaps zero-filled), so an
//! extracted-then-rebuilt archive is byte-identical to the original.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use pakrat_io::{fsutil, nocase, Error, FString, Result, Writer};
use serde::Serialize;

use crate::archive::{fold, ProblemKind, Umod, FLAGS_SETUP, MAGIC, TRAILER_LEN, VERSION};
use crate::manifest::{Manifest, RecordKind, MANIFEST_INI, MANIFEST_INT};

/// Member layout copied from an existing archive.
#[derive(Clone, Debug)]
pub struct OrderTemplate {
    /// `(name, offset, size, flags)` in directory order.
    pub entries: Vec<(String, u32, u32, u32)>,
    /// Directory offset.
    pub dir_offset: u32,
    /// False when the original's members overlap or lie out of bounds (its
    /// offsets are then not reused).
    pub layout_usable: bool,
}

impl OrderTemplate {
    /// Take the order, names, flags and layout of a parsed archive.
    pub fn from_umod(u: &Umod<'_>) -> OrderTemplate {
        OrderTemplate {
            entries: u
                .entries
                .iter()
                .map(|e| (e.name.clone(), e.offset, e.size, e.flags))
                .collect(),
            dir_offset: u.trailer.dir_offset,
            layout_usable: !u.problems().iter().any(|p| {
                matches!(
                    p.kind,
                    ProblemKind::Overlap | ProblemKind::EntryOutOfBounds | ProblemKind::UnsafeName
                )
            }),
        }
    }
}

/// Options for [`plan`].
#[derive(Clone, Debug, Default)]
pub struct CreateOptions {
    /// Align every member to this many bytes (UT2004's `ucc master`: 16).
    pub align: Option<u32>,
    /// Copy order, flags and layout from an existing archive.
    pub order_from: Option<OrderTemplate>,
    /// Pack the target of a symbolic link found in the source folder;
    /// without it such a link is refused (it could pull in any file of the
    /// machine, from outside the folder).
    pub follow_symlinks: bool,
}

/// Refuse a source file reached through a symbolic link below `root`
/// (unless `follow`).
fn check_links(root: &Path, path: &Path, follow: bool) -> Result<()> {
    if follow {
        return Ok(());
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut cur = root.to_path_buf();
    for c in rel.components() {
        cur.push(c);
        let meta = std::fs::symlink_metadata(&cur).map_err(|e| Error::io(&cur, e))?;
        if meta.file_type().is_symlink() {
            let to = std::fs::read_link(&cur)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            return Err(Error::Other(format!(
                "{} is a symbolic link (to {to}): refusing to pack what it points at (use --follow-symlinks to pack the target)",
                cur.display()
            )));
        }
    }
    Ok(())
}

/// One member to write.
#[derive(Clone, Debug, Serialize)]
pub struct Member {
    /// Name stored in the directory.
    pub name: String,
    /// Source file.
    pub path: PathBuf,
    /// Payload offset.
    pub offset: u32,
    /// Payload size.
    pub size: u32,
    /// Item flags.
    pub flags: u32,
}

impl Member {
    /// A member read from `path` (its size checked to fit 32 bits), not yet placed.
    fn from_file(name: String, path: PathBuf, flags: u32) -> Result<Member> {
        Ok(Member {
            size: file_size(&path)?,
            name,
            path,
            offset: 0,
            flags,
        })
    }
}

/// A complete layout, ready to write.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// Members in directory order.
    pub members: Vec<Member>,
    /// Directory offset.
    pub dir_offset: u32,
    /// Things worth telling the user (stale sizes, appended members...).
    pub warnings: Vec<String>,
}

/// Find `name` (archive spelling, `\` or `/`) under `root`, matching each
/// component case-insensitively (exact spelling preferred).
pub fn find_source(root: &Path, name: &str) -> Result<PathBuf> {
    let rel = fsutil::sanitize_relative(name)?;
    let mut cur = root.to_path_buf();
    for comp in rel.components() {
        let want = comp.as_os_str();
        let exact = cur.join(want);
        if std::fs::symlink_metadata(&exact).is_ok() {
            cur = exact;
            continue;
        }
        let names = nocase::try_list_names(&cur).map_err(|e| Error::io(&cur, e))?;
        match nocase::pick(&names, &want.to_string_lossy()) {
            Some(n) => cur = cur.join(n),
            None => {
                return Err(Error::Other(format!(
                    "{}: no file or folder matching {:?} (looked for {name:?})",
                    cur.display(),
                    comp.as_os_str()
                )))
            }
        }
    }
    let meta = std::fs::metadata(&cur).map_err(|e| Error::io(&cur, e))?;
    if !meta.is_file() {
        return Err(Error::Other(format!("{} is not a file", cur.display())));
    }
    Ok(cur)
}

fn file_size(p: &Path) -> Result<u32> {
    let n = std::fs::metadata(p).map_err(|e| Error::io(p, e))?.len();
    u32::try_from(n).map_err(|_| {
        Error::Other(format!(
            "{}: {n} bytes does not fit a UMOD's 32-bit sizes",
            p.display()
        ))
    })
}

fn directory_bytes(members: &[Member]) -> Result<Vec<u8>> {
    let mut w = Writer::new();
    let n = i32::try_from(members.len())
        .map_err(|_| Error::Other("too many members for a UMOD directory".into()))?;
    w.compact(n);
    for m in members {
        if m.name.chars().count() >= 1 << 29 {
            return Err(Error::Other(format!("member name too long: {}", m.name)));
        }
        w.fstring(&FString::new(m.name.as_str()));
        w.u32(m.offset).u32(m.size).u32(m.flags);
    }
    Ok(w.into_inner())
}

fn too_big(what: u64) -> Error {
    Error::Other(format!(
        "the archive would need {what} bytes but UMOD offsets and sizes are 32-bit (4 GiB at most)"
    ))
}

/// Work out what to write from `src` (a folder holding `System/Manifest.ini`).
pub fn plan(src: &Path, opts: &CreateOptions) -> Result<Plan> {
    let mut warnings = Vec::new();
    let ini_path = find_source(src, MANIFEST_INI)?;
    let ini = pakrat_io::read_capped(&ini_path, pakrat_io::caps::INI, "a UMOD manifest")?;
    let int_path = match find_source(src, MANIFEST_INT) {
        Ok(p) => Some(p),
        Err(_) => {
            warnings.push(format!(
                "no {MANIFEST_INT} in {}: the installer will have no product texts",
                src.display()
            ));
            None
        }
    };
    let int = match &int_path {
        Some(p) => Some(pakrat_io::read_capped(
            p,
            pakrat_io::caps::INI,
            "a UMOD manifest",
        )?),
        None => None,
    };
    let manifest = Manifest::parse(&ini, int.as_deref());
    warnings.extend(manifest.warnings.iter().map(|w| format!("manifest: {w}")));

    // (name, flags, declared size) in manifest order, without duplicates.
    let mut wanted: Vec<(String, u32, Option<u64>)> = Vec::new();
    let mut push = |name: &str, flags: u32, size: Option<u64>| {
        let name = name.replace('/', "\\");
        if !wanted.iter().any(|(n, _, _)| fold(n) == fold(&name)) {
            wanted.push((name, flags, size));
        }
    };
    push(MANIFEST_INI, FLAGS_SETUP, None);
    if int_path.is_some() {
        push(MANIFEST_INT, FLAGS_SETUP, None);
    }
    for rec in manifest.records() {
        let default = match rec.kind {
            RecordKind::Copy => FLAGS_SETUP,
            RecordKind::File => 0,
        };
        push(rec.member_name(), rec.flags.unwrap_or(default), rec.size);
    }

    let mut members = Vec::new();
    let mut declared = Vec::new();
    match &opts.order_from {
        None => {
            for (name, flags, size) in wanted {
                let path = find_source(src, &name)?;
                members.push(Member::from_file(name, path, flags)?);
                declared.push(size);
            }
        }
        Some(t) => {
            for (name, _, _, flags) in &t.entries {
                let path = find_source(src, name).map_err(|e| {
                    Error::Other(format!(
                        "the original has member {name:?} but the source folder does not: {e}"
                    ))
                })?;
                members.push(Member::from_file(name.clone(), path, *flags)?);
                let d = wanted
                    .iter()
                    .find(|(n, _, _)| fold(n) == fold(name))
                    .and_then(|w| w.2);
                declared.push(d);
            }
            for (name, flags, size) in wanted {
                if t.entries.iter().any(|(n, ..)| fold(n) == fold(&name)) {
                    continue;
                }
                warnings.push(format!(
                    "{name:?} is named by the manifest but not in the original: appended"
                ));
                let path = find_source(src, &name)?;
                members.push(Member::from_file(name, path, flags)?);
                declared.push(size);
            }
        }
    }
    for m in &members {
        check_links(src, &m.path, opts.follow_symlinks)?;
    }
    for (m, d) in members.iter().zip(&declared) {
        if let Some(d) = d {
            if *d != u64::from(m.size) && fold(&m.name) != fold(MANIFEST_INI) {
                warnings.push(format!(
                    "manifest says Size={d} for {:?} but the file has {} bytes",
                    m.name, m.size
                ));
            }
        }
    }

    // Layout.
    let reuse = match &opts.order_from {
        Some(t)
            if t.layout_usable
                && opts.align.is_none()
                && t.entries.len() == members.len()
                && t.entries.iter().zip(&members).all(|(e, m)| e.2 == m.size) =>
        {
            Some(t.dir_offset)
        }
        Some(_) => {
            warnings.push(
                "sizes or members differ from the original (or --align was given): members packed back to back"
                    .into(),
            );
            None
        }
        None => None,
    };
    let dir_offset = match (reuse, &opts.order_from) {
        (Some(dir), Some(t)) => {
            for (m, e) in members.iter_mut().zip(&t.entries) {
                m.offset = e.1;
            }
            dir
        }
        _ => {
            let align = u64::from(opts.align.unwrap_or(1));
            if align == 0 {
                return Err(Error::Other("--align must be at least 1".into()));
            }
            let mut pos = 0u64;
            for m in &mut members {
                pos = pos.div_ceil(align) * align;
                m.offset = u32::try_from(pos).map_err(|_| too_big(pos))?;
                pos += u64::from(m.size);
            }
            let pos = pos.div_ceil(align) * align;
            u32::try_from(pos).map_err(|_| too_big(pos))?
        }
    };
    let dir_len = directory_bytes(&members)?.len() as u64;
    let total = u64::from(dir_offset) + dir_len + TRAILER_LEN as u64;
    if total > u64::from(u32::MAX) {
        return Err(too_big(total));
    }
    Ok(Plan {
        members,
        dir_offset,
        warnings,
    })
}

/// What [`write()`] produced.
#[derive(Clone, Debug, Serialize)]
pub struct CreateReport {
    /// Output file.
    pub path: PathBuf,
    /// Its size.
    pub size: u64,
    /// Its CRC.
    pub crc: u32,
    /// Members written.
    pub members: usize,
}

fn zeros(
    w: &mut dyn Write,
    crc: &mut crc::Digest<'_, u32, crc::Table<16>>,
    n: u64,
) -> std::io::Result<()> {
    let z = [0u8; 4096];
    let mut left = n;
    while left > 0 {
        let k = left.min(z.len() as u64) as usize;
        w.write_all(&z[..k])?;
        crc.update(&z[..k]);
        left -= k as u64;
    }
    Ok(())
}

/// Write a planned archive atomically to `out` (refusing to replace an
/// existing file unless `force`).
pub fn write(plan: &Plan, out: &Path, force: bool) -> Result<CreateReport> {
    write_with(plan, out, force, &|_| {})
}

/// [`write()`], calling `on_progress` with the bytes of each chunk of member
/// data as it is copied in.
pub fn write_with(
    plan: &Plan,
    out: &Path,
    force: bool,
    on_progress: &dyn Fn(u64),
) -> Result<CreateReport> {
    let dir = directory_bytes(&plan.members)?;
    let mut order: Vec<&Member> = plan.members.iter().collect();
    order.sort_by_key(|m| m.offset);
    let mut crc_out = 0;
    let mut total = 0u64;
    fsutil::write_atomic(out, force, |w| {
        let mut crc = pakrat_io::crc::MEM_CRC.digest();
        let mut pos = 0u64;
        let mut buf = vec![0u8; 1 << 20];
        for m in &order {
            let off = u64::from(m.offset);
            if off < pos {
                return Err(std::io::Error::other(format!(
                    "{}: planned offset {off:#x} overlaps the previous member",
                    m.name
                )));
            }
            zeros(w, &mut crc, off - pos)?;
            let mut f = pakrat_io::open_regular(&m.path).map_err(std::io::Error::other)?;
            let mut left = u64::from(m.size);
            while left > 0 {
                let k = left.min(buf.len() as u64) as usize;
                f.read_exact(&mut buf[..k]).map_err(|e| {
                    std::io::Error::new(
                        e.kind(),
                        format!("{}: changed while being read: {e}", m.path.display()),
                    )
                })?;
                crc.update(&buf[..k]);
                w.write_all(&buf[..k])?;
                left -= k as u64;
                on_progress(k as u64);
            }
            if f.read(&mut buf[..1])? != 0 {
                return Err(std::io::Error::other(format!(
                    "{}: grew while being read",
                    m.path.display()
                )));
            }
            pos = off + u64::from(m.size);
        }
        let d = u64::from(plan.dir_offset);
        if d < pos {
            return Err(std::io::Error::other("directory offset overlaps a member"));
        }
        zeros(w, &mut crc, d - pos)?;
        crc.update(&dir);
        w.write_all(&dir)?;
        total = d + dir.len() as u64 + TRAILER_LEN as u64;
        let size = u32::try_from(total).map_err(|_| std::io::Error::other("archive too big"))?;
        crc_out = crc.finalize();
        let mut t = Writer::new();
        t.u32(MAGIC)
            .u32(plan.dir_offset)
            .u32(size)
            .u32(VERSION)
            .u32(crc_out);
        w.write_all(t.as_slice())
    })?;
    Ok(CreateReport {
        path: out.to_path_buf(),
        size: total,
        crc: crc_out,
        members: plan.members.len(),
    })
}

/// [`plan`] then [`write()`].
pub fn create(
    src: &Path,
    out: &Path,
    force: bool,
    opts: &CreateOptions,
) -> Result<(Plan, CreateReport)> {
    let p = plan(src, opts)?;
    let r = write(&p, out, force)?;
    Ok((p, r))
}

/// A whole UMOD in memory from `(name, bytes, flags)` members, laid out
/// back to back in the given order (directory after the payloads, then the
/// trailer with size and CRC), as [`write()`] lays out a planned folder.
/// For tests, fuzzing and tools that build archives without a folder.
pub fn to_bytes(members: &[(&str, &[u8], u32)]) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut placed = Vec::with_capacity(members.len());
    for (name, data, flags) in members {
        let offset = u32::try_from(body.len()).map_err(|_| too_big(body.len() as u64))?;
        let size = u32::try_from(data.len()).map_err(|_| too_big(data.len() as u64))?;
        body.extend_from_slice(data);
        placed.push(Member {
            name: (*name).to_string(),
            path: PathBuf::new(),
            offset,
            size,
            flags: *flags,
        });
    }
    let dir = u32::try_from(body.len()).map_err(|_| too_big(body.len() as u64))?;
    body.extend_from_slice(&directory_bytes(&placed)?);
    let total = body.len() as u64 + 20;
    let total = u32::try_from(total).map_err(|_| too_big(total))?;
    let crc = pakrat_io::crc::mem_crc(&body);
    let mut w = Writer::new();
    w.u32(crate::archive::MAGIC)
        .u32(dir)
        .u32(total)
        .u32(1)
        .u32(crc);
    body.extend_from_slice(w.as_slice());
    Ok(body)
}
