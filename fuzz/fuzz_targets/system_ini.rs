//! Game ini / cache.ini reader (pakrat-system): sections, Paths arrays,
//! cache entries.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ini = pakrat_system::Ini::parse(data);
    let _ = ini.array("Core.System", "Paths");
    let _ = ini.get("Core.System", "CachePath");
    let cache = pakrat_system::CacheIni::from_ini(&ini);
    for e in &cache.entries {
        let _ = e.package_name();
        let _ = pakrat_system::cache::safe_file_name(&e.name);
    }
});
