//! UE1/UE2 package writer: parse → write → parse gives the same model (or
//! the writer refuses with an error), unchanged and after renaming a name
//! to a longer one (which moves the name table) and adding a generation
//! (which grows the header).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::write::Rewrite;
use pakrat_classic::Package;

/// What the reader sees, without file positions of entries and tables.
fn model(p: &Package<'_>) -> String {
    let imports: Vec<_> = p
        .imports
        .iter()
        .map(|i| (i.class_package, i.class_name, i.outer, i.object_name))
        .collect();
    let exports: Vec<_> = p
        .exports
        .iter()
        .map(|e| {
            let data = p.export_data(e_index(p, e)).ok().map(|d| d.to_vec());
            (e.class, e.super_, e.outer, e.object_name, e.flags, e.serial_size, e.serial_offset, data)
        })
        .collect();
    let s = &p.summary;
    format!(
        "{} {} {} {} {:?} {:?} {:?} {imports:?} {exports:?}",
        s.version, s.licensee, s.package_flags, s.guid, s.generations, s.heritage, p.names
    )
}

fn e_index(p: &Package<'_>, e: &pakrat_classic::Export) -> usize {
    p.exports
        .iter()
        .position(|x| std::ptr::eq(x, e))
        .unwrap_or(0)
}

fuzz_target!(|data: &[u8]| {
    let Ok(p) = Package::parse_lenient(data) else {
        return;
    };
    let before = model(&p);
    // Unchanged.
    if let Ok(out) = Rewrite::new(&p).to_bytes() {
        let q = Package::parse_lenient(&out).expect("a written package reads back");
        assert_eq!(before, model(&q), "unchanged write changed the model");
    }
    // A longer name and a new generation.
    let mut w = Rewrite::new(&p);
    if let Some(n) = p.names.first() {
        let old = n.text.to_string();
        let new = format!("{}_x", old.chars().take(40).collect::<String>());
        if w.rename_name(&old, &new).is_err() {
            return;
        }
    }
    w.new_generation(pakrat_io::Guid { words: [1, 2, 3, 4] });
    if let Ok(out) = w.to_bytes() {
        let q = Package::parse_lenient(&out).expect("an edited package reads back");
        assert_eq!(q.names.len(), p.names.len());
        assert_eq!(q.summary.guid, pakrat_io::Guid { words: [1, 2, 3, 4] });
        assert_eq!(q.imports.len(), p.imports.len());
        assert_eq!(q.exports.len(), p.exports.len());
        for (a, b) in p.exports.iter().zip(&q.exports) {
            assert_eq!((a.serial_offset, a.serial_size), (b.serial_offset, b.serial_size));
        }
    }
});
