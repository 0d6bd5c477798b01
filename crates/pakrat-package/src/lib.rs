//! Unreal packages (UE1/UE2): header, tables, tagged properties and object exporters
#![deny(missing_docs)]
