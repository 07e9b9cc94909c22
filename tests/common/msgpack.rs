//! Just enough msgpack for tests that carry provider values by hand: build simple objects
//! and render any answer as compact text for snapshots. The real cty codec lives in `cty`.

/// A value to encode.
pub enum Msg {
    Nil,
    Bool(bool),
    Int(i64),
    Str(&'static str),
    /// Keys must be given in sorted order, as cty writes object attributes.
    Object(Vec<(&'static str, Msg)>),
    Map(Vec<(&'static str, Msg)>),
    Array(Vec<Msg>),
}

pub fn encode(value: &Msg) -> Vec<u8> {
    let mut out = Vec::new();
    write(&mut out, value);
    out
}

fn write(out: &mut Vec<u8>, value: &Msg) {
    match value {
        Msg::Nil => rmp::encode::write_nil(out).unwrap(),
        Msg::Bool(b) => rmp::encode::write_bool(out, *b).unwrap(),
        Msg::Int(n) => {
            rmp::encode::write_sint(out, *n).unwrap();
        }
        Msg::Str(s) => rmp::encode::write_str(out, s).unwrap(),
        Msg::Array(items) => {
            rmp::encode::write_array_len(out, items.len() as u32).unwrap();
            for item in items {
                write(out, item);
            }
        }
        Msg::Object(entries) | Msg::Map(entries) => {
            rmp::encode::write_map_len(out, entries.len() as u32).unwrap();
            for (key, value) in entries {
                rmp::encode::write_str(out, key).unwrap();
                write(out, value);
            }
        }
    }
}

/// Renders msgpack as text: `{id: "x", n: 3, gone: null, later: (unknown)}`.
pub fn render(bytes: &[u8]) -> String {
    let mut cursor = Cursor { bytes, pos: 0 };
    let text = cursor.value();
    if cursor.pos != bytes.len() {
        return format!("{text} <{} trailing bytes>", bytes.len() - cursor.pos);
    }
    text
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let end = (self.pos + n).min(self.bytes.len());
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        slice
    }

    fn uint(&mut self, n: usize) -> u64 {
        self.take(n).iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
    }

    fn value(&mut self) -> String {
        let Some(&marker) = self.bytes.get(self.pos) else { return "<eof>".to_owned() };
        self.pos += 1;
        match marker {
            0x00..=0x7f => marker.to_string(),
            0xe0..=0xff => (marker as i8).to_string(),
            0x80..=0x8f => self.map(usize::from(marker & 0x0f)),
            0x90..=0x9f => self.array(usize::from(marker & 0x0f)),
            0xa0..=0xbf => self.str(usize::from(marker & 0x1f)),
            0xc0 => "null".to_owned(),
            0xc2 => "false".to_owned(),
            0xc3 => "true".to_owned(),
            0xc4..=0xc6 => {
                let n = self.uint(1 << (marker - 0xc4)) as usize;
                self.take(n);
                format!("bin({n})")
            }
            0xcb => f64::from_bits(self.uint(8)).to_string(),
            0xcc..=0xcf => self.uint(1 << (marker - 0xcc)).to_string(),
            0xd0..=0xd3 => {
                let width = 1usize << (marker - 0xd0);
                let raw = self.uint(width);
                let shift = 64 - 8 * width as u32;
                (((raw << shift) as i64) >> shift).to_string()
            }
            0xd4..=0xd8 => {
                let n = 1usize << (marker - 0xd4);
                self.ext(n)
            }
            0xc7..=0xc9 => {
                let n = self.uint(1 << (marker - 0xc7)) as usize;
                self.ext(n)
            }
            0xd9..=0xdb => {
                let n = self.uint(1 << (marker - 0xd9)) as usize;
                self.str(n)
            }
            0xdc | 0xdd => {
                let n = self.uint(if marker == 0xdc { 2 } else { 4 }) as usize;
                self.array(n)
            }
            0xde | 0xdf => {
                let n = self.uint(if marker == 0xde { 2 } else { 4 }) as usize;
                self.map(n)
            }
            other => format!("<marker {other:#x}>"),
        }
    }

    fn str(&mut self, n: usize) -> String {
        format!("{:?}", String::from_utf8_lossy(self.take(n)))
    }

    fn ext(&mut self, n: usize) -> String {
        let ty = self.take(1).first().copied().unwrap_or_default();
        self.take(n);
        if n <= 1 { "(unknown)".to_owned() } else { format!("(unknown refined, ext {ty})") }
    }

    fn array(&mut self, n: usize) -> String {
        let items: Vec<String> = (0..n).map(|_| self.value()).collect();
        format!("[{}]", items.join(", "))
    }

    fn map(&mut self, n: usize) -> String {
        let entries: Vec<String> = (0..n)
            .map(|_| {
                let key = self.value();
                let key = key.trim_matches('"').to_owned();
                format!("{key}: {}", self.value())
            })
            .collect();
        format!("{{{}}}", entries.join(", "))
    }
}
