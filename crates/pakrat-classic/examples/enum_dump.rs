//! Debug helper: print the values of an enum defined in a package.
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("package path");
    let name = args.next().expect("enum name");
    let data = std::fs::read(&path).expect("read");
    let p = pakrat_classic::Package::parse(&data).expect("parse");
    for i in p.find_exports(&name) {
        let mut o = pakrat_classic::props::read_object(&p, i).expect("object");
        let r = &mut o.native;
        let _sup = r.compact("super").unwrap();
        let _next = r.compact("next").unwrap();
        let n = r.compact("count").unwrap();
        let names: Vec<String> = (0..n)
            .map(|_| p.name(r.compact("name").unwrap() as u32).to_string())
            .collect();
        println!(
            "{} ({}): {:?}",
            p.export_path(i).unwrap(),
            p.export_class_name(i).unwrap(),
            names
        );
    }
}
