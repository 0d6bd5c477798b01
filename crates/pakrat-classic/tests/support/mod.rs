//! Hand-built UE1/UE2 packages for the synthetic tests.

use pakrat_io::Writer;
/// (class, super, outer, name, flags, data) of one export.
pub type Exp = (i32, i32, i32, i32, u32, &'static [u8]);

/// A v69 package with the given names, imports (cpkg, cname, outer, name)
/// and exports (class, super, outer, name, flags, data).
pub fn build(names: &[&str], imports: &[(i32, i32, i32, i32)], exports: &[Exp]) -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(0x9E2A_83C1).u16(69).u16(0).u32(1);
    let fields = w.len();
    w.zeros(24); // counts and offsets, patched below
    w.guid(pakrat_io::Guid {
        words: [1, 2, 3, 4],
    });
    w.i32(1).i32(exports.len() as i32).i32(names.len() as i32);
    let mut data_at = Vec::new();
    for e in exports {
        data_at.push(w.len());
        w.bytes(e.5);
    }
    let name_off = w.len();
    for n in names {
        w.fstring(&(*n).into()).u32(0x0007_0010);
    }
    let imp_off = w.len();
    for i in imports {
        w.compact(i.0).compact(i.1).i32(i.2).compact(i.3);
    }
    let exp_off = w.len();
    for (k, e) in exports.iter().enumerate() {
        w.compact(e.0).compact(e.1).i32(e.2).compact(e.3).u32(e.4);
        w.compact(e.5.len() as i32);
        if !e.5.is_empty() {
            w.compact(data_at[k] as i32);
        }
    }
    let v = [
        names.len(),
        name_off,
        exports.len(),
        exp_off,
        imports.len(),
        imp_off,
    ];
    for (i, x) in v.iter().enumerate() {
        w.patch_u32(fields + 4 * i, *x as u32);
    }
    w.into_inner()
}
