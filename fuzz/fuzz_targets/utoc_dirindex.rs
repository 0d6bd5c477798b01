//! IoStore directory index (decrypted bytes): mount point, directory and
//! file entries, string table, and the walk to full paths.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    if let Some(d) = ok(pakrat_iostore::dirindex::DirectoryIndex::parse(data, 0)) {
        let _ = ok(d.walk());
    }
});
