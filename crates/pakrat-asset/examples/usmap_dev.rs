fn main() {
    let a: Vec<String> = std::env::args().collect();
    let u = pakrat_asset::usmap::Usmap::open(std::path::Path::new(&a[1])).unwrap();
    for n in &a[2..] {
        let s = u.structs.iter().find(|s| &s.name == n).unwrap();
        println!(
            "{} super {:?} count {}",
            s.name, s.super_name, s.property_count
        );
        for p in &s.properties {
            println!("  {} dim {} {} {}", p.index, p.array_dim, p.name, p.ty);
        }
    }
}
