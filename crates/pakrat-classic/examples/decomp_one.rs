//! Decompile one class (development aid): `decomp_one PKG CLASS [NATIVE_PKGS...]`.
use pakrat_classic::script::natives::{NativeTable, Natives};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&a[1]).unwrap();
    let pkg = pakrat_classic::Package::parse(&data).unwrap();
    let extra: Vec<Vec<u8>> = a[3..].iter().map(|p| std::fs::read(p).unwrap()).collect();
    let ep: Vec<_> = extra.iter().map(|d| pakrat_classic::Package::parse(d).unwrap()).collect();
    let mut t = NativeTable::new();
    t.add(&pkg);
    for p in &ep {
        t.add(p);
    }
    if let Ok(n) = a[2].parse::<u16>() {
        println!("{:?}", t.native(n));
        return;
    }
    for i in 0..pkg.exports.len() {
        if pkg.exports[i].class.is_none() && pkg.name(pkg.exports[i].object_name).eq_ignore_ascii_case(&a[2]) {
            match pakrat_classic::script::decompile_class(&pkg, "X", i, &t) {
                Ok(s) => println!("{s}"),
                Err(e) => println!("error: {e}"),
            }
        }
    }
}
