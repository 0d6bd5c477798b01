//! Transitive dependencies of a package inside a game folder.
//!
//! A package depends on every package its import table names at the top
//! level (imports with no outer whose class is `Package`; see
//! [`pakrat_classic::Package::imported_packages`]). Each name is resolved
//! with [`GameDir::resolve`], each file is read once, and the walk visits
//! every package name once, so cycles cannot loop.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pakrat_classic::Package;
use pakrat_io::text::show;
use pakrat_io::{Guid, Result};
use serde::Serialize;

use crate::game::{GameDir, Via};
use crate::generation::PkgVersion;
use crate::graph;

/// One package in the graph.
#[derive(Clone, Debug, Serialize)]
pub struct DepNode {
    /// Package name (file name without extension for the root).
    pub name: String,
    /// The file that satisfies it; `None` when missing.
    pub file: Option<PathBuf>,
    /// How it was found.
    pub via: Option<Via>,
    /// Package version, when read.
    pub version: Option<u16>,
    /// Licensee version, when read.
    pub licensee: Option<u16>,
    /// Package GUID, when read.
    pub guid: Option<Guid>,
    /// Names of the packages it imports, in import-table order.
    pub imports: Vec<String>,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
    /// Names of the packages that import this one.
    pub needed_by: Vec<String>,
}

/// A missing package and who needs it.
#[derive(Clone, Debug, Serialize)]
pub struct Missing {
    /// Package name.
    pub name: String,
    /// Packages whose import tables name it.
    pub needed_by: Vec<String>,
}

/// A dependency found, but in another engine generation or game than the
/// package that imports it ([`PkgVersion::mismatch`]): the engine that
/// loads the importer cannot load it.
#[derive(Clone, Debug, Serialize)]
pub struct Mismatch {
    /// The imported package name.
    pub name: String,
    /// The file found for it.
    pub file: PathBuf,
    /// That file's version.
    pub found: PkgVersion,
    /// The importing package.
    pub importer: String,
    /// The importer's version.
    pub importer_version: PkgVersion,
    /// In words, e.g. `Engine: found Engine.u but it is UE1 v69, the
    /// importer is UE2 v128/29`.
    pub message: String,
}

/// The whole dependency graph.
#[derive(Clone, Debug, Serialize)]
pub struct DepGraph {
    /// Index of the root in `nodes` (always 0).
    pub root: usize,
    /// Every package reached, root first, then in breadth-first order.
    pub nodes: Vec<DepNode>,
    /// Edges `(importer, imported)` as node indices.
    pub edges: Vec<(usize, usize)>,
    /// Packages that could not be found.
    pub missing: Vec<Missing>,
    /// Packages found but unreadable: `(name, error)`.
    pub unreadable: Vec<(String, String)>,
    /// Dependency cycles (node names), if any.
    pub cycles: Vec<Vec<String>>,
    /// Dependencies found in another engine generation or game than their
    /// importer.
    pub mismatches: Vec<Mismatch>,
}

/// Read a package file's header and top-level imports.
pub fn read_imports(path: &Path) -> Result<(u16, Guid, Vec<String>)> {
    let (v, g, imports) = read_imports_versioned(path)?;
    Ok((v.version, g, imports))
}

/// [`read_imports`] with the licensee version.
pub fn read_imports_versioned(path: &Path) -> Result<(PkgVersion, Guid, Vec<String>)> {
    let src = pakrat_classic::lineage::open(path)?;
    let pkg = Package::parse_lenient(&src).map_err(|e| e.in_file(path))?;
    let imports = pkg
        .imported_packages()
        .into_iter()
        .map(str::to_string)
        .collect();
    let v = PkgVersion {
        version: pkg.summary.version,
        licensee: pkg.summary.licensee,
    };
    Ok((v, pkg.summary.guid, imports))
}

/// Walk the dependencies of `package`: a path to a file, or a name to
/// resolve in `game`.
pub fn walk(game: &GameDir, package: &str) -> Result<DepGraph> {
    let as_path = Path::new(package);
    let (root_name, root_found) = if as_path.is_file() {
        let stem = as_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| package.to_string());
        (stem, Some((as_path.to_path_buf(), Via::Direct)))
    } else {
        let base = Path::new(package)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| package.to_string());
        let found = game.resolve(&base, None).map(|f| (f.path, f.via));
        let stem = base.split('.').next().unwrap_or(&base).to_string();
        (stem, found)
    };
    let mut nodes: Vec<DepNode> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut edges = Vec::new();
    let mut edge_set: HashSet<(usize, usize)> = HashSet::new();
    let mut queue = VecDeque::new();
    let new_node = |name: &str, found: Option<(PathBuf, Via)>| DepNode {
        name: name.to_string(),
        file: found.as_ref().map(|f| f.0.clone()),
        via: found.map(|f| f.1),
        version: None,
        licensee: None,
        guid: None,
        imports: Vec::new(),
        error: None,
        needed_by: Vec::new(),
    };
    nodes.push(new_node(&root_name, root_found));
    by_name.insert(root_name.to_ascii_lowercase(), 0);
    queue.push_back(0usize);
    while let Some(i) = queue.pop_front() {
        let Some(file) = nodes[i].file.clone() else {
            continue;
        };
        let (me_version, imports) = match read_imports_versioned(&file) {
            Ok((v, g, imports)) => {
                nodes[i].version = Some(v.version);
                nodes[i].licensee = Some(v.licensee);
                nodes[i].guid = Some(g);
                (v, imports)
            }
            Err(e) => {
                nodes[i].error = Some(e.to_string());
                continue;
            }
        };
        let me = nodes[i].name.clone();
        let mut names = Vec::new();
        for imp in imports {
            if imp.eq_ignore_ascii_case(&me) {
                continue;
            }
            let key = imp.to_ascii_lowercase();
            let j = match by_name.get(&key) {
                Some(&j) => j,
                None => {
                    let found = game
                        .resolve_for(&imp, None, Some(me_version))
                        .map(|f| (f.path, f.via));
                    nodes.push(new_node(&imp, found));
                    let j = nodes.len() - 1;
                    by_name.insert(key, j);
                    queue.push_back(j);
                    j
                }
            };
            if edge_set.insert((i, j)) {
                edges.push((i, j));
                nodes[j].needed_by.push(me.clone());
            }
            names.push(imp);
        }
        nodes[i].imports = names;
    }
    let missing = nodes
        .iter()
        .filter(|n| n.file.is_none())
        .map(|n| Missing {
            name: n.name.clone(),
            needed_by: n.needed_by.clone(),
        })
        .collect();
    let unreadable = nodes
        .iter()
        .filter_map(|n| Some((n.name.clone(), n.error.clone()?)))
        .collect();
    let mut adj = vec![Vec::new(); nodes.len()];
    for &(a, b) in &edges {
        adj[a].push(b);
    }
    let cycles = graph::cycles(&adj)
        .into_iter()
        .map(|c| c.into_iter().map(|i| nodes[i].name.clone()).collect())
        .collect();
    let version = |n: &DepNode| {
        Some(PkgVersion {
            version: n.version?,
            licensee: n.licensee?,
        })
    };
    let mut mismatches = Vec::new();
    for &(a, b) in &edges {
        let (imp, dep) = (&nodes[a], &nodes[b]);
        let (Some(iv), Some(dv), Some(file)) = (version(imp), version(dep), &dep.file) else {
            continue;
        };
        if let Some(why) = dv.mismatch(iv) {
            let shown = file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            mismatches.push(Mismatch {
                message: format!(
                    "{}: found {} but {why} ({})",
                    dep.name,
                    show(&shown),
                    show(&imp.name)
                ),
                name: dep.name.clone(),
                file: file.clone(),
                found: dv,
                importer: imp.name.clone(),
                importer_version: iv,
            });
        }
    }
    Ok(DepGraph {
        root: 0,
        nodes,
        edges,
        missing,
        unreadable,
        cycles,
        mismatches,
    })
}

/// Default depth of [`DepGraph::to_tree`].
pub const TREE_DEPTH: usize = 48;

impl DepGraph {
    /// A text tree: each package expanded once, later mentions marked
    /// `(see above)`, at most [`TREE_DEPTH`] levels deep (see
    /// [`DepGraph::to_tree_bounded`]).
    pub fn to_tree(&self, base: &Path) -> String {
        self.to_tree_bounded(base, TREE_DEPTH)
    }

    /// A text tree at most `max_depth` levels deep. Every package is
    /// printed once with its children; a later mention says `(see above)`.
    /// A package deeper than `max_depth` is named with `(continued below)`
    /// and its subtree starts again at the left margin after the tree, so
    /// that every package still appears and the output stays linear in the
    /// size of the graph (a chain of 40,000 packages once printed 2.4 GB
    /// of indentation).
    pub fn to_tree_bounded(&self, base: &Path, max_depth: usize) -> String {
        let max_depth = max_depth.max(1);
        let mut out = String::new();
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            adj[a].push(b);
        }
        let wrong: HashSet<&str> = self.mismatches.iter().map(|m| m.name.as_str()).collect();
        let mut expanded = vec![false; self.nodes.len()];
        let mut deferred = vec![false; self.nodes.len()];
        // Trees to print: the root, then each subtree cut off at max_depth.
        let mut queue = VecDeque::from([self.root]);
        let mut first = true;
        while let Some(r) = queue.pop_front() {
            if expanded[r] {
                continue;
            }
            if !first {
                let _ = writeln!(out, "\n(continued from above)");
            }
            first = false;
            // (node, prefix for children, connector for this line, depth)
            let mut stack: Vec<(usize, String, String, usize)> =
                vec![(r, String::new(), String::new(), 0)];
            while let Some((i, prefix, connector, depth)) = stack.pop() {
                let n = &self.nodes[i];
                let _ = write!(out, "{connector}{}", show(&n.name));
                match (&n.file, &n.error) {
                    (None, _) => out.push_str("  MISSING"),
                    (Some(f), err) => {
                        let shown = f.strip_prefix(base).unwrap_or(f);
                        let _ = write!(out, "  {}", show(&shown.display().to_string()));
                        if let Some(v) = n.version {
                            let _ = write!(out, "  v{v}");
                        }
                        if wrong.contains(n.name.as_str()) {
                            out.push_str("  WRONG GENERATION");
                        }
                        if matches!(n.via, Some(Via::CacheGuid | Via::CacheIni)) {
                            out.push_str("  (from the download cache)");
                        }
                        if let Some(e) = err {
                            let _ = write!(out, "  UNREADABLE: {}", show(e));
                        }
                    }
                }
                if expanded[i] && !adj[i].is_empty() {
                    out.push_str("  (see above)\n");
                    continue;
                }
                if depth >= max_depth && !adj[i].is_empty() {
                    out.push_str("  (continued below)\n");
                    if !deferred[i] {
                        deferred[i] = true;
                        queue.push_back(i);
                    }
                    continue;
                }
                out.push('\n');
                expanded[i] = true;
                let kids = &adj[i];
                for (k, &c) in kids.iter().enumerate().rev() {
                    let last = k + 1 == kids.len();
                    let conn = format!("{prefix}{}", if last { "└─ " } else { "├─ " });
                    let pre = format!("{prefix}{}", if last { "   " } else { "│  " });
                    stack.push((c, pre, conn, depth + 1));
                }
            }
        }
        out
    }

    /// A Graphviz `digraph`; missing packages are drawn red and dashed.
    pub fn to_dot(&self) -> String {
        let q = |s: &str| {
            let mut o = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' | '\\' => {
                        o.push('\\');
                        o.push(c);
                    }
                    '\n' | '\r' => o.push(' '),
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        };
        let mut out = String::from("digraph deps {\n  rankdir=LR;\n  node [shape=box];\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let style = if n.file.is_none() {
                ", color=red, style=dashed, fontcolor=red"
            } else if n.error.is_some() {
                ", color=orange"
            } else if i == self.root {
                ", style=bold"
            } else {
                ""
            };
            let _ = writeln!(out, "  n{i} [label={}{style}];", q(&n.name));
        }
        for &(a, b) in &self.edges {
            let _ = writeln!(out, "  n{a} -> n{b};");
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tree_tests {
    use super::*;

    fn node(name: String) -> DepNode {
        DepNode {
            name,
            file: None,
            via: None,
            version: None,
            licensee: None,
            guid: None,
            imports: Vec::new(),
            error: None,
            needed_by: Vec::new(),
        }
    }

    /// Issue 16 finding 11: a chain and a diamond lattice print in space
    /// linear in the graph, every package once, whatever the depth.
    #[test]
    fn deep_and_wide_graphs_print_linearly() {
        // A chain of 20,000 packages (the full tree was quadratic).
        let n = 20_000;
        let g = DepGraph {
            root: 0,
            nodes: (0..n).map(|i| node(format!("P{i}"))).collect(),
            edges: (0..n - 1).map(|i| (i, i + 1)).collect(),
            missing: Vec::new(),
            unreadable: Vec::new(),
            cycles: Vec::new(),
            mismatches: Vec::new(),
        };
        let t = g.to_tree(Path::new("/"));
        assert!(t.len() < n * (TREE_DEPTH * 4 + 64), "{} bytes", t.len());
        let lines: Vec<&str> = t.lines().filter(|l| l.contains('P')).collect();
        for i in (0..n).step_by(1999) {
            let name = format!("P{i}  MISSING");
            assert!(
                lines.iter().any(
                    |l| l.ends_with(&name) || l.contains(&format!("{name}  (continued below)"))
                ),
                "P{i} not shown"
            );
        }
        // A lattice of 40 levels of 2 packages, each importing both of the
        // next level: 2^40 paths, 80 packages.
        let levels = 40;
        let mut edges = Vec::new();
        for l in 0..levels - 1 {
            for a in 0..2 {
                for b in 0..2 {
                    edges.push((1 + l * 2 + a, 1 + (l + 1) * 2 + b));
                }
            }
        }
        edges.push((0, 1));
        edges.push((0, 2));
        let g = DepGraph {
            root: 0,
            nodes: (0..1 + levels * 2).map(|i| node(format!("L{i}"))).collect(),
            edges,
            missing: Vec::new(),
            unreadable: Vec::new(),
            cycles: Vec::new(),
            mismatches: Vec::new(),
        };
        let t = g.to_tree_bounded(Path::new("/"), 8);
        assert!(
            t.lines().count() < 4 * (1 + levels * 2),
            "{}",
            t.lines().count()
        );
        assert!(t.contains("(continued below)") && t.contains("(see above)"));
    }
}
