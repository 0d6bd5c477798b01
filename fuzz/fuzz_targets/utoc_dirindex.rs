//! IoStore directory index (decrypted bytes): mount point, directory and
//! file entries, string table, and the walk to full paths; written back,
//! it reads as the same index.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    if let Some(d) = ok(pakrat_iostore::dirindex::DirectoryIndex::parse(data, 0)) {
        let _ = ok(d.walk());
        let back = pakrat_iostore::dirindex::DirectoryIndex::parse(&d.to_bytes(), 0)
            .expect("a written directory index reads back");
        assert_eq!(back.mount_point, d.mount_point);
        assert_eq!(back.directories, d.directories);
        assert_eq!(back.files, d.files);
        assert_eq!(back.strings, d.strings);
    }
});
