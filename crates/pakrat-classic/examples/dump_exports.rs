//! Debug helper: print the export table of a package.
fn main() {
    let path = std::env::args().nth(1).expect("package path");
    let data = std::fs::read(&path).expect("read");
    let p = pakrat_classic::Package::parse(&data).expect("parse");
    for (i, e) in p.exports.iter().enumerate() {
        println!(
            "{i} {} {} flags={:#x} size={} off={:#x}",
            p.export_class_name(i).unwrap(),
            p.export_path(i).unwrap(),
            e.flags,
            e.serial_size,
            e.serial_offset
        );
    }
}
