//! UMOD installers (.umod, .ut2mod, .ut4mod): read, verify, extract, build, install
#![deny(missing_docs)]
