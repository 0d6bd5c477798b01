//! `export --decompile`: the natives a package's bytecode calls, from the
//! package itself and the packages it imports found beside it.

use std::path::Path;

use pakrat_classic::export::ExportOptions;
use pakrat_classic::script::natives::NativeTable;
use pakrat_classic::Package;

use crate::args_export::ExportArgs;

/// The natives of `pkg` (read from `path`) and of each package it imports
/// that sits in the same folder as `<Name>.u` (case-insensitive): Core for
/// the operators, Engine for the actor natives. A package not found leaves
/// its natives unknown, and a class calling one fails with the index.
pub fn natives_for(pkg: &Package<'_>, path: &Path) -> NativeTable {
    let mut t = NativeTable::new();
    t.add(pkg);
    let dir = path.parent().unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return t;
    };
    let files: Vec<std::path::PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    for name in pkg.imported_packages() {
        let found = files.iter().find(|f| {
            f.extension().is_some_and(|e| e.eq_ignore_ascii_case("u"))
                && f.file_stem()
                    .is_some_and(|s| s.to_string_lossy().eq_ignore_ascii_case(name))
                && f.as_path() != path
        });
        let Some(f) = found else { continue };
        let Ok(data) = std::fs::read(f) else { continue };
        if let Ok(p) = Package::parse(&data) {
            t.add(&p);
        }
    }
    t
}

/// `opts` for the package at `path`: its name (the file stem, as the
/// engine names a package), and its natives when `--decompile` is given.
pub fn options_for(
    a: &ExportArgs,
    opts: &ExportOptions,
    pkg: &Package<'_>,
    path: &Path,
) -> ExportOptions {
    let mut o = opts.clone();
    o.package = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if a.decompile {
        o.decompile = Some(std::sync::Arc::new(natives_for(pkg, path)));
    }
    o
}
