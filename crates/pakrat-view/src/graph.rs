//! The dependency graph drawn as SVG.

use std::collections::VecDeque;

pub(crate) fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Most boxes side by side; a wider layer wraps into more rows.
pub const MAX_ROW: usize = 8;

/// The graph drawn in layers (depth from the root; a layer of more than
/// 8 (`MAX_ROW`) packages in several rows), missing packages in red with a
/// dashed border.
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
    let (bw, bh, gx, gy, gr) = (150.0, 26.0, 16.0, 60.0, 14.0);
    // A layer wider than MAX_ROW boxes wraps into rows: a map importing
    // 38 packages is 8 boxes wide, not 38 (6,324 px shrunk to a page).
    let widest = layers
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(1)
        .clamp(1, MAX_ROW);
    let width = widest as f64 * (bw + gx) + gx;
    let mut pos = vec![(0.0, 0.0); n];
    let mut y = gy / 2.0;
    for layer in &layers {
        for row in layer.chunks(MAX_ROW) {
            let w = row.len() as f64 * (bw + gx) - gx;
            let x0 = (width - w) / 2.0;
            for (k, &i) in row.iter().enumerate() {
                pos[i] = (x0 + k as f64 * (bw + gx), y);
            }
            y += bh + gr;
        }
        y += gy - gr;
    }
    let height = y - gy / 2.0;
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

#[cfg(test)]
mod tests {
    use super::*;
    use pakrat_system::deps::{DepGraph, DepNode};

    fn node(name: &str, found: bool) -> DepNode {
        DepNode {
            name: name.into(),
            file: found.then(|| format!("/x/{name}.u").into()),
            via: None,
            version: None,
            licensee: None,
            guid: None,
            imports: Vec::new(),
            error: None,
            needed_by: Vec::new(),
        }
    }

    fn attr(svg: &str, name: &str) -> f64 {
        let at = svg.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        svg[at..].split('"').next().unwrap().parse().unwrap()
    }

    /// A map importing 38 packages (a UT2004 map's graph was 6,324 px
    /// wide): at most MAX_ROW boxes side by side, every box drawn, no two
    /// boxes overlapping.
    #[test]
    fn a_wide_layer_wraps_into_rows() {
        let mut nodes = vec![node("DM-Map", true)];
        let mut edges = Vec::new();
        for k in 0..38 {
            nodes.push(node(&format!("Pkg{k}"), k % 3 == 0));
            edges.push((0, k + 1));
        }
        let g = DepGraph {
            root: 0,
            nodes,
            edges,
            missing: Vec::new(),
            unreadable: Vec::new(),
            cycles: Vec::new(),
            mismatches: Vec::new(),
        };
        let svg = graph_svg(&g);
        let width = attr(&svg, "width");
        assert!(width <= MAX_ROW as f64 * 166.0 + 16.0, "{width} px wide");
        let boxes: Vec<(f64, f64)> = svg
            .split("<rect x=\"")
            .skip(1)
            .map(|r| {
                let x: f64 = r.split('"').next().unwrap().parse().unwrap();
                let y: f64 = r
                    .split("y=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                (x, y)
            })
            .collect();
        assert_eq!(boxes.len(), 39);
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.0 >= 0.0 && a.0 + 150.0 <= width, "{a:?} outside {width}");
            for b in &boxes[i + 1..] {
                let apart = (a.0 - b.0).abs() >= 150.0 || (a.1 - b.1).abs() >= 26.0;
                assert!(apart, "{a:?} and {b:?} overlap");
            }
        }
        assert!(
            attr(&svg, "height") >= 6.0 * 26.0,
            "38 boxes in 5 rows and the root"
        );
    }
}
