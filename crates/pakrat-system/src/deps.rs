//! Transitive dependencies of a package inside a game folder.
//!
//! A package depends on every package its import table names at the top
//! level (imports with no outer whose class is `Package`; see
//! [`pakrat_package::Package::imported_packages`]). Each name is resolved
//! with [`GameDir::resolve`], each file is read once, and the walk visits
//! every package name once, so cycles cannot loop.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pakrat_io::{Guid, Result, Source};
use pakrat_package::Package;
use serde::Serialize;

use crate::game::{GameDir, Via};
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
}

/// Read a package file's header and top-level imports.
pub fn read_imports(path: &Path) -> Result<(u16, Guid, Vec<String>)> {
    let src = Source::open(path)?;
    let pkg = Package::parse_lenient(&src).map_err(|e| e.in_file(path))?;
    let imports = pkg
        .imported_packages()
        .into_iter()
        .map(str::to_string)
        .collect();
    Ok((pkg.summary.version, pkg.summary.guid, imports))
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
        let imports = match read_imports(&file) {
            Ok((v, g, imports)) => {
                nodes[i].version = Some(v);
                nodes[i].guid = Some(g);
                imports
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
                    let found = game.resolve(&imp, None).map(|f| (f.path, f.via));
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
    Ok(DepGraph {
        root: 0,
        nodes,
        edges,
        missing,
        unreadable,
        cycles,
    })
}

impl DepGraph {
    /// A text tree: each package expanded once, later mentions marked `(see above)`.
    pub fn to_tree(&self, base: &Path) -> String {
        let mut out = String::new();
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            adj[a].push(b);
        }
        let mut expanded = vec![false; self.nodes.len()];
        // (node, prefix for children, connector for this line)
        let mut stack: Vec<(usize, String, String)> =
            vec![(self.root, String::new(), String::new())];
        while let Some((i, prefix, connector)) = stack.pop() {
            let n = &self.nodes[i];
            let _ = write!(out, "{connector}{}", n.name);
            match (&n.file, &n.error) {
                (None, _) => out.push_str("  MISSING"),
                (Some(f), err) => {
                    let shown = f.strip_prefix(base).unwrap_or(f);
                    let _ = write!(out, "  {}", shown.display());
                    if let Some(v) = n.version {
                        let _ = write!(out, "  v{v}");
                    }
                    if matches!(n.via, Some(Via::CacheGuid | Via::CacheIni)) {
                        out.push_str("  (from the download cache)");
                    }
                    if let Some(e) = err {
                        let _ = write!(out, "  UNREADABLE: {e}");
                    }
                }
            }
            if expanded[i] && !adj[i].is_empty() {
                out.push_str("  (see above)\n");
                continue;
            }
            out.push('\n');
            expanded[i] = true;
            let kids = &adj[i];
            for (k, &c) in kids.iter().enumerate().rev() {
                let last = k + 1 == kids.len();
                let conn = format!("{prefix}{}", if last { "└─ " } else { "├─ " });
                let pre = format!("{prefix}{}", if last { "   " } else { "│  " });
                stack.push((c, pre, conn));
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
