//! Scratch check: decode corpus .uz files, re-encode, compare.
fn main() {
    for p in std::env::args().skip(1) {
        let data = std::fs::read(&p).unwrap();
        let t = std::time::Instant::now();
        match pakrat_uz::decompress(&data) {
            Ok(d) => {
                let dt = t.elapsed();
                let mut o =
                    pakrat_uz::CompressOptions::new(d.info.format, d.original_name().unwrap_or(""));
                if let Some(s) = d.info.signature {
                    o.signature = s;
                }
                let t2 = std::time::Instant::now();
                let re = pakrat_uz::compress(&d.data, &o).unwrap();
                println!(
                    "{p}: {:?} {} bytes pkg={} dec {:?} enc {:?} identical={} ({} vs {})",
                    d.info,
                    d.data.len(),
                    d.is_package(),
                    dt,
                    t2.elapsed(),
                    re == data,
                    re.len(),
                    data.len()
                );
            }
            Err(e) => println!("{p}: ERR {e}"),
        }
    }
}
