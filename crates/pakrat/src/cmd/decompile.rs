//! `export --decompile`: the natives a package's bytecode calls, from the
//! package itself, the files and folders given with `--natives`, the
//! packages it imports found beside it, a game folder's `Paths`, and
//! (for an index or a class none of them defines) the built-in native
//! and type tables.

use std::path::{Path, PathBuf};

use pakrat_classic::export::ExportOptions;
use pakrat_classic::script::natives::NativeTable;
use pakrat_classic::Package;

use crate::args_export::ExportArgs;

/// The natives of `pkg` (read from `path`), looked up in this order (the
/// first definition of a native index wins):
/// 1. the package itself;
/// 2. each `--natives` entry in the order given: a file is read as it is
///    (any name: `ut2004_Core.u`), a folder gives `<Name>.u` for each
///    package `pkg` imports;
/// 3. `<Name>.u` beside the input (case-insensitive) for each import;
/// 4. when the input sits in a game's `System` folder (or in a folder
///    beside one), each import resolved the way `deps` does, through the
///    ini's `[Core.System] Paths`.
///
/// A package not found leaves its natives unknown, unless a built-in table
/// of that package applies (UT2004's XInterface, Deus Ex's packages:
/// `pakrat_classic::script::natives::builtin`): a call to one is written
/// `UnknownNative<index>(...)`. Its classes (supers, properties,
/// functions, enums) come from a built-in type table when one applies.
pub fn natives_for(pkg: &Package<'_>, path: &Path, extra: &[PathBuf]) -> NativeTable {
    let mut t = NativeTable::new();
    // Each package under its file name, as the engine names packages (what
    // object literals are checked against).
    let stem = |f: &Path| {
        f.file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default()
    };
    t.add_named(pkg, &stem(path));
    let imports: Vec<&str> = pkg.imported_packages();
    let add_file = |t: &mut NativeTable, f: &Path| {
        if f == path {
            return;
        }
        let Ok(data) = std::fs::read(f) else { return };
        if let Ok(p) = Package::parse(&data) {
            t.add_named(&p, &stem(f));
        }
    };
    for e in extra {
        if e.is_dir() {
            for f in imports.iter().filter_map(|n| beside(e, n)) {
                add_file(&mut t, &f);
            }
        } else {
            add_file(&mut t, e);
        }
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    for f in imports.iter().filter_map(|n| beside(dir, n)) {
        add_file(&mut t, &f);
    }
    if let Some(game) = game_of(dir) {
        for n in &imports {
            if let Some(found) = game.resolve(n, None) {
                add_file(&mut t, &found.path);
            }
        }
    }
    t
}

/// `<name>.u` in `dir` (case-insensitive).
fn beside(dir: &Path, name: &str) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries.filter_map(|e| e.ok().map(|e| e.path())).find(|f| {
        f.extension().is_some_and(|e| e.eq_ignore_ascii_case("u"))
            && f.file_stem()
                .is_some_and(|s| s.to_string_lossy().eq_ignore_ascii_case(name))
    })
}

/// The game folder `dir` belongs to: `dir` itself when it is a `System`
/// folder, or its parent when that holds one (`Maps/`, `Textures/`...).
/// `None` for a plain folder of packages (no `System`, no ini).
fn game_of(dir: &Path) -> Option<pakrat_system::game::GameDir> {
    let named_system = dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("System"));
    let root = if named_system {
        dir.to_path_buf()
    } else {
        let parent = dir.parent()?;
        let has_system = std::fs::read_dir(parent)
            .ok()?
            .filter_map(|e| e.ok())
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .eq_ignore_ascii_case("System")
                    && e.path().is_dir()
            });
        if !has_system {
            return None;
        }
        parent.to_path_buf()
    };
    let game = pakrat_system::game::GameDir::open(&root, None).ok()?;
    (!game.plain_folder).then_some(game)
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
        o.decompile = Some(std::sync::Arc::new(natives_for(pkg, path, &a.natives)));
    }
    o
}

/// The built-in tables the decompiled classes of `opts` used (a native
/// index, or a class, property, function or enum no package given
/// defines, named from pakrat's table of that game's package), as `Game
/// Package` for a native table and `Game Package (types)` for a type
/// table.
pub fn builtins_used(opts: &ExportOptions) -> Vec<String> {
    let Some(t) = &opts.decompile else {
        return Vec::new();
    };
    t.builtins_used()
        .iter()
        .map(|b| {
            let kind = if b.types { " (types)" } else { "" };
            format!("{} {}{kind}", b.game, b.package)
        })
        .collect()
}

/// The line that says which built-in tables named natives or types (none
/// when none did).
pub fn builtins_note(opts: &ExportOptions) -> Option<String> {
    let used = builtins_used(opts);
    (!used.is_empty()).then(|| {
        format!(
            "natives and types named from pakrat's built-in tables (no package given defines them): {}",
            used.join(", ")
        )
    })
}
