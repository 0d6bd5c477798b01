//! The directory index (`FIoDirectoryIndexResource`, UE `IoDirectoryIndex.h/.cpp`).
//!
//! ```text
//! FString MountPoint
//! TArray<{u32 Name, FirstChild, NextSibling, FirstFile}> Directories   (root = 0)
//! TArray<{u32 Name, NextFile, UserData}> Files                         (UserData = TOC entry)
//! TArray<FString> StringTable
//! ```
//! FString = `i32` length counting the NUL (negative = UTF-16LE); `~0` = none.

use pakrat_codec::fstring::{read_fstring, write_fstring};
use pakrat_io::{Error, Reader, Result, Writer};

const NONE: u32 = u32::MAX;

/// One directory entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// String table index (`~0` for the root).
    pub name: u32,
    /// First child directory or `~0`.
    pub first_child: u32,
    /// Next sibling directory or `~0`.
    pub next_sibling: u32,
    /// First file or `~0`.
    pub first_file: u32,
}

/// One file entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// String table index.
    pub name: u32,
    /// Next file in the same directory or `~0`.
    pub next_file: u32,
    /// TOC entry index.
    pub user_data: u32,
}

/// A decoded directory index.
#[derive(Clone, Debug, Default)]
pub struct DirectoryIndex {
    /// Mount point, e.g. `../../../` or `../../../Proj/Content/`.
    pub mount_point: String,
    /// Directories (root = 0).
    pub directories: Vec<DirEntry>,
    /// Files.
    pub files: Vec<FileEntry>,
    /// String table.
    pub strings: Vec<String>,
}

/// A file reached by walking the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedFile {
    /// Path below the mount point (`/`-separated).
    pub path: String,
    /// TOC entry index.
    pub toc_index: u32,
}

/// The mount point UE's writer picks: the longest common folder of all the
/// files' full paths (ending in `/`). Checked on every indexed corpus TOC.
pub fn common_mount_point<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let mut common: Option<&str> = None;
    for p in paths {
        let dir = match p.rfind('/') {
            Some(i) => &p[..=i],
            None => "",
        };
        common = Some(match common {
            None => dir,
            Some(c) => {
                let n = c
                    .char_indices()
                    .zip(dir.chars())
                    .take_while(|((_, a), b)| a == b)
                    .last()
                    .map_or(0, |((i, a), _)| i + a.len_utf8());
                let prefix = &c[..n];
                match prefix.rfind('/') {
                    Some(i) => &c[..=i],
                    None => "",
                }
            }
        });
    }
    common.unwrap_or("").to_string()
}

impl DirectoryIndex {
    /// Build the index of `files` (path below `mount_point`, TOC entry), in
    /// the engine's order (UE `FIoDirectoryIndexWriter`), so that the same
    /// files give the same bytes (checked on every indexed corpus TOC):
    /// files are added in the order given (UE adds them in TOC slot order);
    /// a new directory or file goes to the *front* of its parent's list;
    /// strings are stored once, in order of first use.
    pub fn build<'a>(
        mount_point: &str,
        files: impl IntoIterator<Item = (&'a str, u32)>,
    ) -> DirectoryIndex {
        let mut ix = DirectoryIndex {
            mount_point: mount_point.to_string(),
            directories: vec![DirEntry {
                name: NONE,
                first_child: NONE,
                next_sibling: NONE,
                first_file: NONE,
            }],
            files: Vec::new(),
            strings: Vec::new(),
        };
        let mut string_ix: std::collections::HashMap<String, u32> = Default::default();
        let mut child_ix: std::collections::HashMap<(u32, u32), u32> = Default::default();
        let mut intern = |ix: &mut DirectoryIndex, s: &str| -> u32 {
            if let Some(&i) = string_ix.get(s) {
                return i;
            }
            let i = ix.strings.len() as u32;
            ix.strings.push(s.to_string());
            string_ix.insert(s.to_string(), i);
            i
        };
        for (path, toc_index) in files {
            let mut parts: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
            let Some(file) = parts.pop() else { continue };
            let mut d = 0u32;
            for comp in parts {
                let name = intern(&mut ix, comp);
                d = match child_ix.get(&(d, name)) {
                    Some(&c) => c,
                    None => {
                        let c = ix.directories.len() as u32;
                        let parent = &mut ix.directories[d as usize];
                        let next_sibling = parent.first_child;
                        parent.first_child = c;
                        ix.directories.push(DirEntry {
                            name,
                            first_child: NONE,
                            next_sibling,
                            first_file: NONE,
                        });
                        child_ix.insert((d, name), c);
                        c
                    }
                };
            }
            let name = intern(&mut ix, file);
            let f = ix.files.len() as u32;
            let dir = &mut ix.directories[d as usize];
            ix.files.push(FileEntry {
                name,
                next_file: dir.first_file,
                user_data: toc_index,
            });
            dir.first_file = f;
        }
        ix
    }

    /// Serialize (unpadded, unencrypted); the mirror of [`DirectoryIndex::parse`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        write_fstring(&mut w, &self.mount_point);
        w.i32(self.directories.len() as i32);
        for d in &self.directories {
            w.u32(d.name)
                .u32(d.first_child)
                .u32(d.next_sibling)
                .u32(d.first_file);
        }
        w.i32(self.files.len() as i32);
        for f in &self.files {
            w.u32(f.name).u32(f.next_file).u32(f.user_data);
        }
        w.i32(self.strings.len() as i32);
        for s in &self.strings {
            write_fstring(&mut w, s);
        }
        w.into_inner()
    }

    /// Parse decrypted directory index bytes; `base` is their offset in the
    /// `.utoc` (for messages). Up to 15 trailing bytes (AES padding) are allowed.
    pub fn parse(data: &[u8], base: u64) -> Result<DirectoryIndex> {
        let mut r = Reader::with_base(data, base);
        let mount_point = read_fstring(&mut r, "mount point")?;
        let n = r.i32("directory count")?;
        let n = r.check_count(i64::from(n), 16, "directory entries")?;
        let mut directories = Vec::with_capacity(n);
        for _ in 0..n {
            directories.push(DirEntry {
                name: r.u32("directory name")?,
                first_child: r.u32("first child directory")?,
                next_sibling: r.u32("next sibling directory")?,
                first_file: r.u32("first file")?,
            });
        }
        let n = r.i32("file count")?;
        let n = r.check_count(i64::from(n), 12, "file entries")?;
        let mut files = Vec::with_capacity(n);
        for _ in 0..n {
            files.push(FileEntry {
                name: r.u32("file name")?,
                next_file: r.u32("next file")?,
                user_data: r.u32("file TOC index")?,
            });
        }
        let n = r.i32("string count")?;
        let n = r.check_count(i64::from(n), 4, "string table")?;
        let mut strings = Vec::with_capacity(n);
        for _ in 0..n {
            strings.push(read_fstring(&mut r, "directory index string")?);
        }
        if r.remaining() >= 16 {
            return Err(r.invalid(format!(
                "{} bytes after the directory index string table",
                r.remaining()
            )));
        }
        Ok(DirectoryIndex {
            mount_point,
            directories,
            files,
            strings,
        })
    }

    fn name(&self, i: u32, what: &str) -> Result<&str> {
        self.strings
            .get(i as usize)
            .map(|s| s.as_str())
            .ok_or_else(|| {
                Error::Other(format!(
                    "directory index: {what} name {i} is outside the string table ({} strings)",
                    self.strings.len()
                ))
            })
    }

    /// Walk the tree from the root and list every file with its path below
    /// the mount point. Cycles, dangling links and bad names are errors.
    pub fn walk(&self) -> Result<Vec<IndexedFile>> {
        let mut out = Vec::with_capacity(self.files.len());
        if self.directories.is_empty() {
            if self.files.is_empty() {
                return Ok(out);
            }
            return Err(Error::Other(
                "directory index has files but no root directory".into(),
            ));
        }
        let mut seen_dir = vec![false; self.directories.len()];
        let mut seen_file = vec![false; self.files.len()];
        // (directory index, path prefix)
        let mut stack: Vec<(u32, String)> = vec![(0, String::new())];
        while let Some((d, prefix)) = stack.pop() {
            let slot = seen_dir.get_mut(d as usize).ok_or_else(|| {
                Error::Other(format!(
                    "directory index: directory {d} does not exist ({} directories)",
                    self.directories.len()
                ))
            })?;
            if *slot {
                return Err(Error::Other(format!(
                    "directory index: directory {d} is reached twice (cycle)"
                )));
            }
            *slot = true;
            let dir = self.directories[d as usize];
            let mut f = dir.first_file;
            while f != NONE {
                let seen = seen_file.get_mut(f as usize).ok_or_else(|| {
                    Error::Other(format!(
                        "directory index: file {f} does not exist ({} files)",
                        self.files.len()
                    ))
                })?;
                if *seen {
                    return Err(Error::Other(format!(
                        "directory index: file {f} is reached twice (cycle)"
                    )));
                }
                *seen = true;
                let fe = self.files[f as usize];
                let name = self.name(fe.name, "file")?;
                out.push(IndexedFile {
                    path: format!("{prefix}{name}"),
                    toc_index: fe.user_data,
                });
                f = fe.next_file;
            }
            let mut c = dir.first_child;
            // Sibling chains are bounded: each directory is visited once.
            let mut steps = 0usize;
            while c != NONE {
                steps += 1;
                if steps > self.directories.len() {
                    return Err(Error::Other("directory index: sibling chain loops".into()));
                }
                let child = self.directories.get(c as usize).ok_or_else(|| {
                    Error::Other(format!(
                        "directory index: directory {c} does not exist ({} directories)",
                        self.directories.len()
                    ))
                })?;
                let name = self.name(child.name, "directory")?;
                stack.push((c, format!("{prefix}{name}/")));
                c = child.next_sibling;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fstr(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }

    fn build(dirs: &[[u32; 4]], files: &[[u32; 3]], strings: &[&str]) -> Vec<u8> {
        let mut d = Vec::new();
        fstr(&mut d, "../../../");
        d.extend_from_slice(&(dirs.len() as i32).to_le_bytes());
        for e in dirs {
            for v in e {
                d.extend_from_slice(&v.to_le_bytes());
            }
        }
        d.extend_from_slice(&(files.len() as i32).to_le_bytes());
        for e in files {
            for v in e {
                d.extend_from_slice(&v.to_le_bytes());
            }
        }
        d.extend_from_slice(&(strings.len() as i32).to_le_bytes());
        for s in strings {
            fstr(&mut d, s);
        }
        d
    }

    #[test]
    fn walks_tree() {
        let d = build(
            &[[NONE, 1, NONE, 0], [0, NONE, NONE, 1]],
            &[[1, NONE, 5], [2, NONE, 7]],
            &["Game", "a.txt", "b.uasset"],
        );
        let ix = DirectoryIndex::parse(&d, 0).unwrap();
        assert_eq!(ix.mount_point, "../../../");
        let w = ix.walk().unwrap();
        assert_eq!(
            w,
            vec![
                IndexedFile {
                    path: "a.txt".into(),
                    toc_index: 5
                },
                IndexedFile {
                    path: "Game/b.uasset".into(),
                    toc_index: 7
                },
            ]
        );
    }

    #[test]
    fn build_round_trips_and_links_like_the_engine() {
        let files = [
            ("A/x.uasset", 0u32),
            ("B/y.uasset", 1),
            ("A/z.ubulk", 2),
            ("top.bin", 3),
        ];
        let ix = DirectoryIndex::build("../../../P/", files.iter().copied());
        // Newest first: A's files are z then x; root's children B then A.
        assert_eq!(ix.directories[0].first_child, 2);
        assert_eq!(
            ix.strings,
            vec!["A", "x.uasset", "B", "y.uasset", "z.ubulk", "top.bin"]
        );
        let back = DirectoryIndex::parse(&ix.to_bytes(), 0).unwrap();
        let mut got: Vec<(String, u32)> = back
            .walk()
            .unwrap()
            .into_iter()
            .map(|f| (f.path, f.toc_index))
            .collect();
        got.sort();
        let mut want: Vec<(String, u32)> = files.iter().map(|(p, i)| (p.to_string(), *i)).collect();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(back.to_bytes(), ix.to_bytes());
        assert_eq!(
            common_mount_point(["../../../P/C/a", "../../../P/Cb/x", "../../../P/C/d/e"]),
            "../../../P/"
        );
        assert_eq!(common_mount_point(["../../../P/C/a"]), "../../../P/C/");
    }

    #[test]
    fn rejects_cycles_and_garbage() {
        let d = build(&[[NONE, 0, NONE, NONE]], &[], &[]);
        assert!(DirectoryIndex::parse(&d, 0).unwrap().walk().is_err());
        let d = build(&[[NONE, NONE, NONE, 0]], &[[0, 0, 1]], &["x"]);
        assert!(DirectoryIndex::parse(&d, 0).unwrap().walk().is_err());
        assert!(DirectoryIndex::parse(&[0xAB; 64], 0).is_err());
    }
}
