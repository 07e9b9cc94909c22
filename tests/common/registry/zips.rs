//! Zip archives for the tests: well-formed ones through the `zip` crate, and hostile ones
//! written byte by byte, because a well-behaved zip writer refuses to produce them.

use std::io::Write;

/// A well-formed, deflated zip of `(name, content, unix mode)` entries.
pub fn build(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
    build_with(entries, zip::CompressionMethod::Deflated)
}

/// Like [`build`] without compression: compressing a real 18 MB provider in a debug build
/// takes seconds, and the installer treats both methods alike.
#[allow(dead_code)] // Only tests/peer/installer_random/ (the peer tier) zips a real provider.
pub fn build_stored(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
    build_with(entries, zip::CompressionMethod::Stored)
}

fn build_with(entries: &[(&str, &[u8], u32)], method: zip::CompressionMethod) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, content, mode) in entries {
        let options = zip::write::SimpleFileOptions::default().compression_method(method).unix_permissions(*mode);
        writer.start_file(*name, options).unwrap();
        writer.write_all(content).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// A raw stored entry; `claimed_size` overrides the uncompressed size written in the headers.
pub struct RawEntry<'a> {
    pub name: &'a str,
    pub content: &'a [u8],
    pub claimed_size: Option<u64>,
    pub unix_mode: u32,
}

/// Writes a stored (uncompressed) zip by hand. When an entry claims more than 4 GiB the sizes
/// go into a zip64 extra field, exactly as a real zip64 writer would put them, so readers see
/// the claimed size while only `content` is on disk.
pub fn build_raw(entries: &[RawEntry<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let offset = out.len() as u32;
        let crc = crc32(entry.content);
        let compressed = entry.content.len() as u64;
        let uncompressed = entry.claimed_size.unwrap_or(compressed);
        let zip64 = uncompressed > u32::MAX as u64;
        let (size32_c, size32_u) = if zip64 { (u32::MAX, u32::MAX) } else { (compressed as u32, uncompressed as u32) };
        let mut extra = Vec::new();
        if zip64 {
            extra.extend_from_slice(&1u16.to_le_bytes());
            extra.extend_from_slice(&16u16.to_le_bytes());
            extra.extend_from_slice(&uncompressed.to_le_bytes());
            extra.extend_from_slice(&compressed.to_le_bytes());
        }
        let version_needed: u16 = if zip64 { 45 } else { 20 };

        out.extend_from_slice(&0x04034b50u32.to_le_bytes());
        out.extend_from_slice(&version_needed.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // flags
        out.extend_from_slice(&0u16.to_le_bytes()); // method: stored
        out.extend_from_slice(&0u16.to_le_bytes()); // time
        out.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&size32_c.to_le_bytes());
        out.extend_from_slice(&size32_u.to_le_bytes());
        out.extend_from_slice(&(entry.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        out.extend_from_slice(entry.name.as_bytes());
        out.extend_from_slice(&extra);
        out.extend_from_slice(entry.content);

        central.extend_from_slice(&0x02014b50u32.to_le_bytes());
        central.extend_from_slice(&((3u16 << 8) | version_needed).to_le_bytes()); // made by: unix
        central.extend_from_slice(&version_needed.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0x21u16.to_le_bytes());
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&size32_c.to_le_bytes());
        central.extend_from_slice(&size32_u.to_le_bytes());
        central.extend_from_slice(&(entry.name.len() as u16).to_le_bytes());
        central.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&(entry.unix_mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(entry.name.as_bytes());
        central.extend_from_slice(&extra);
    }
    let central_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x06054b50u32.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// CRC-32 (IEEE), bit by bit: slow, but only ever run over a few bytes here.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
