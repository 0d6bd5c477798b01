//! The dependency graph drawn as SVG.

use std::collections::VecDeque;

pub(crate) fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The graph drawn in layers (depth from the root), missing packages in
/// red with a dashed border.
pub fn graph_svg(g: &pakrat_system::deps::DepGraph) -> String {
    let n = g.nodes.len();
    let mut depth = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    if n > 0 {
        depth[g.root] = 0;
        queue.push_back(g.root);
    }
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in &g.edges {
        if a < n && b < n {
            out_edges[a].push(b);
        }
    }
    while let Some(a) = queue.pop_front() {
        for &b in &out_edges[a] {
            if depth[b] == usize::MAX {
                depth[b] = depth[a] + 1;
                queue.push_back(b);
            }
        }
    }
    let mut layers: Vec<Vec<usize>> = Vec::new();
    for (i, &d) in depth.iter().enumerate() {
        let d = if d == usize::MAX { 0 } else { d };
        if layers.len() <= d {
            layers.resize(d + 1, Vec::new());
        }
        layers[d].push(i);
    }
    let (bw, bh, gx, gy) = (150.0, 26.0, 16.0, 60.0);
    let width = layers.iter().map(Vec::len).max().unwrap_or(1) as f64 * (bw + gx) + gx;
    let height = layers.len() as f64 * (bh + gy) + gy / 2.0;
    let mut pos = vec![(0.0, 0.0); n];
    for (d, layer) in layers.iter().enumerate() {
        let row = layer.len() as f64 * (bw + gx) - gx;
        let x0 = (width - row) / 2.0;
        for (k, &i) in layer.iter().enumerate() {
            pos[i] = (x0 + k as f64 * (bw + gx), gy / 2.0 + d as f64 * (bh + gy));
        }
    }
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#16181c\"/>"
    );
    for &(a, b) in &g.edges {
        if a >= n || b >= n {
            continue;
        }
        let (x1, y1) = (pos[a].0 + bw / 2.0, pos[a].1 + bh);
        let (x2, y2) = (pos[b].0 + bw / 2.0, pos[b].1);
        svg.push_str(&format!(
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#556\" stroke-width=\"1\"/>"
        ));
    }
    for (i, node) in g.nodes.iter().enumerate() {
        let (x, y) = pos[i];
        let missing = node.file.is_none();
        let (fill, stroke, dash) = if missing {
            ("#3a1c1c", "#e06060", " stroke-dasharray=\"4 3\"")
        } else if i == g.root {
            ("#3a3020", "#e0a030", "")
        } else {
            ("#1e2530", "#6a8ab0", "")
        };
        let label: String = node.name.chars().take(20).collect();
        svg.push_str(&format!(
            "<g class=\"{}\"><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bw}\" height=\"{bh}\" rx=\"4\" \
             fill=\"{fill}\" stroke=\"{stroke}\"{dash}/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d8dbe0\" \
             text-anchor=\"middle\">{}</text></g>",
            if missing { "missing" } else { "found" },
            xml(&format!("{}{}", node.name, if missing { " (missing)" } else { "" })),
            x + bw / 2.0,
            y + bh / 2.0 + 4.0,
            xml(&label)
        ));
    }
    svg.push_str("</svg>");
    svg
}
