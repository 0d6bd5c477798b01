//! Debug helper: locate class defaults in every corpus package given.
fn main() {
    let (mut ok, mut bad) = (0, 0);
    let t0 = std::time::Instant::now();
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let Ok(p) = pakrat_classic::Package::parse(&data) else {
            continue;
        };
        for i in 0..p.exports.len() {
            if !p.exports[i].class.is_none() || p.exports[i].serial_size == 0 {
                continue;
            }
            match pakrat_classic::class::read_class_tail(&p, i) {
                Ok(t) => {
                    ok += 1;
                    let me = pakrat_classic::ObjRef::export(i);
                    if !t.dependencies.iter().any(|d| d.0 == me) {
                        println!(
                            "NOSELF {path} {} deps {}",
                            p.export_path(i).unwrap(),
                            t.dependencies.len()
                        );
                    }
                }
                Err(e) => {
                    bad += 1;
                    println!("{path} {}: {e}", p.export_path(i).unwrap());
                }
            }
        }
    }
    println!("{ok} located, {bad} not, {:?}", t0.elapsed());
}
