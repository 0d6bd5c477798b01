//! `verify`: open a package, check every reference, decode every object's
//! properties and the native data pakrat understands (texture mips,
//! palettes, sound/music data, script text), and list every problem.

use rayon::prelude::*;
use serde::Serialize;

use crate::export::{kind_of_class, read_stored_file, read_text_buffer, Kind};
use crate::package::{Package, Problem};
use crate::props::read_object;
use crate::texture::{mip_bytes, read_palette, read_texture, FormatTable};

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
    /// Set when only the tables were checked: why the objects were not
    /// decoded ("tables only: object layout of … is not known").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables_only: Option<String>,
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
                let t = read_texture(pkg, i).map_err(wrap)?;
                // Stored (non-empty) mips must hold what their size needs.
                let sets = std::iter::once((t.format, &t.mips))
                    .chain(t.comp.as_ref().map(|(f, m)| (*f, m)));
                for (format, mips) in sets {
                    let Some(pf) = FormatTable::for_package(pkg, format).get(format) else {
                        continue;
                    };
                    for (m, mip) in mips.iter().enumerate() {
                        let need = mip_bytes(pf, mip.width, mip.height);
                        if let Some(need) =
                            need.filter(|&n| !mip.data.is_empty() && (mip.data.len() as u64) < n)
                        {
                            return Err(wrap(pakrat_io::Error::invalid(
                                at,
                                format!(
                                    "mip {m}: {}x{} {pf:?} needs {need} bytes but holds {}",
                                    mip.width,
                                    mip.height,
                                    mip.data.len()
                                ),
                            )));
                        }
                    }
                }
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
            // Mesh data is read by pakrat-mesh (`pakrat export`); a material
            // is its properties, read above.
            Some(Kind::Mesh | Kind::Material) => {}
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
    if let Err(why) = pkg.summary.object_layout() {
        report.tables_only = Some(why);
        return report;
    }
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
