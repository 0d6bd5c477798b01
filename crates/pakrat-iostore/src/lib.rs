//! IoStore containers (.utoc/.ucas): TOC, blocks, compression, encryption, directory index, zen packages
#![deny(missing_docs)]
pub mod names;
pub mod container_header;
