//! `verify`: open a package, check every reference, decode every object's
//! properties and the native data pakrat understands (texture mips,
//! palettes, sound/music data, script text), and list every problem.

use rayon::prelude::*;
use serde::Serialize;

use crate::export::{kind_of_class, read_stored_file, read_text_buffer, Kind};
use crate::package::{Package, Problem};
use crate::props::read_object;
use crate::texture::{read_palette, read_texture};

/// What `verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VerifyReport {
    /// Exports whose data was decoded without a problem.
    pub objects_ok: usize,
    /// Properties decoded.
    pub properties: usize,
    /// Bytes of tagged-property data decoded (state frames included).
    pub property_bytes: u64,
    /// Every problem, in table order.
    pub problems: Vec<Problem>,
}

/// Check one export: properties and, for classes with an exporter (and
/// palettes), their native data. Returns (properties, property bytes).
pub fn check_export(pkg: &Package<'_>, i: usize) -> Result<(usize, u64), Problem> {
    let e = pkg.exports[i];
    let at = u64::from(e.serial_offset);
    let wrap = |err: pakrat_io::Error| Problem {
        offset: err.offset().unwrap_or(at),
        what: format!(
            "export {i} {} ({}): {}",
            pkg.export_path(i).unwrap_or_default(),
            pkg.export_class_name(i).unwrap_or("?"),
            crate::props::strip(&err)
        ),
    };
    let o = read_object(pkg, i).map_err(wrap)?;
    let class = pkg.export_class_name(i).map_err(wrap)?;
    if e.serial_size > 0 {
        match kind_of_class(class) {
            Some(Kind::Texture) => {
                read_texture(pkg, i).map_err(wrap)?;
            }
            Some(Kind::Sound) => {
                read_stored_file(pkg, i, true).map_err(wrap)?;
            }
            Some(Kind::Music) => {
                read_stored_file(pkg, i, false).map_err(wrap)?;
            }
            Some(Kind::TextBuffer) => {
                read_text_buffer(pkg, i).map_err(wrap)?;
            }
            None if class.eq_ignore_ascii_case("Palette") => {
                read_palette(pkg, i).map_err(wrap)?;
            }
            None => {}
        }
    }
    Ok((o.properties.len(), o.header_len as u64))
}

/// Verify an already parsed (possibly lenient) package.
pub fn verify(pkg: &Package<'_>) -> VerifyReport {
    let mut report = VerifyReport {
        problems: pkg.problems(),
        ..Default::default()
    };
    // Exports whose references are broken are reported above; skip them here.
    let bad: std::collections::HashSet<u64> = report.problems.iter().map(|p| p.offset).collect();
    let results: Vec<Result<(usize, u64), Problem>> = (0..pkg.exports.len())
        .into_par_iter()
        .filter(|&i| !bad.contains(&u64::from(pkg.exports[i].entry_offset)))
        .map(|i| check_export(pkg, i))
        .collect();
    for r in results {
        match r {
            Ok((n, b)) => {
                report.objects_ok += 1;
                report.properties += n;
                report.property_bytes += b;
            }
            Err(p) => report.problems.push(p),
        }
    }
    report
}
