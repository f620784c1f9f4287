//! PDF objects as far as the page count needs them (ISO 32000-1 §7.2–7.5): the lexer, direct
//! objects, indirect objects with their streams, and the Flate filter with PNG predictors.
//! Strings are skipped, not decoded; names are kept with their `#xx` escapes as written.

use super::file_info::{FileError, MAX_DEPTH, MAX_INFLATED};

/// A direct object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Obj {
    Null,
    Bool,
    Int(i64),
    Real(f64),
    Name(Vec<u8>),
    /// A literal or hexadecimal string (its text is not kept).
    Str,
    Array(Vec<Obj>),
    Dict(Dict),
    Ref(u32),
}

/// A dictionary's entries, in order.
pub(crate) type Dict = Vec<(Vec<u8>, Obj)>;

impl Obj {
    pub(crate) fn as_dict(&self) -> Option<&Dict> {
        match self {
            Obj::Dict(d) => Some(d),
            _ => None,
        }
    }

    pub(crate) fn as_int(&self) -> Option<i64> {
        match self {
            Obj::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub(crate) fn as_num(&self) -> Option<f64> {
        match self {
            Obj::Int(i) => Some(*i as f64),
            Obj::Real(r) => Some(*r),
            _ => None,
        }
    }

    pub(crate) fn is_name(&self, name: &[u8]) -> bool {
        matches!(self, Obj::Name(n) if n == name)
    }
}

/// The value of `key` (without its slash) in a dictionary.
pub(crate) fn get<'d>(dict: &'d Dict, key: &[u8]) -> Option<&'d Obj> {
    dict.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, 0 | 9 | 10 | 12 | 13 | 32)
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(b: u8) -> bool {
    !is_space(b) && !is_delimiter(b)
}

/// A cursor over a PDF's bytes.
pub(crate) struct Lexer<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(data: &'a [u8], pos: usize) -> Self {
        Lexer {
            data,
            pos: pos.min(data.len()),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Skips white space and comments.
    pub(crate) fn skip_space(&mut self) {
        while let Some(b) = self.peek() {
            if is_space(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// A run of regular characters (a keyword or a number), after white space.
    pub(crate) fn word(&mut self) -> &'a [u8] {
        self.skip_space();
        self.pos = self.pos.min(self.data.len());
        let start = self.pos;
        while self.peek().is_some_and(is_regular) {
            self.pos += 1;
        }
        &self.data[start..self.pos]
    }

    /// The keyword `kw` next (after white space), consumed; else nothing moves.
    pub(crate) fn keyword(&mut self, kw: &[u8]) -> bool {
        let save = self.pos;
        if self.word() == kw {
            return true;
        }
        self.pos = save;
        false
    }

    /// A non-negative integer next, consumed; else nothing moves.
    pub(crate) fn uint(&mut self) -> Option<u64> {
        let save = self.pos;
        let w = self.word();
        let n = parse_uint(w);
        if n.is_none() {
            self.pos = save;
        }
        n
    }

    /// One direct object (a reference `n g R` included).
    pub(crate) fn object(&mut self, depth: usize) -> Result<Obj, FileError> {
        if depth > MAX_DEPTH {
            return Err(FileError::Malformed);
        }
        self.skip_space();
        let b = self.peek().ok_or(FileError::Malformed)?;
        match b {
            b'/' => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(is_regular) {
                    self.pos += 1;
                }
                Ok(Obj::Name(self.data[start..self.pos].to_vec()))
            }
            b'(' => self.literal_string(),
            b'<' if self.data.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                let mut dict = Dict::new();
                loop {
                    self.skip_space();
                    match self.peek() {
                        Some(b'>') if self.data.get(self.pos + 1) == Some(&b'>') => {
                            self.pos += 2;
                            return Ok(Obj::Dict(dict));
                        }
                        Some(b'/') => {
                            let Obj::Name(key) = self.object(depth + 1)? else {
                                return Err(FileError::Malformed);
                            };
                            let value = self.object(depth + 1)?;
                            dict.push((key, value));
                        }
                        _ => return Err(FileError::Malformed),
                    }
                }
            }
            b'<' => {
                let end =
                    memchr::memchr(b'>', &self.data[self.pos..]).ok_or(FileError::Malformed)?;
                self.pos += end + 1;
                Ok(Obj::Str)
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(Obj::Array(items));
                    }
                    items.push(self.object(depth + 1)?);
                }
            }
            _ => {
                let start = self.pos;
                let w = self.word();
                if w.is_empty() {
                    return Err(FileError::Malformed);
                }
                match w {
                    b"null" => return Ok(Obj::Null),
                    b"true" | b"false" => return Ok(Obj::Bool),
                    _ => {}
                }
                if let Some(n) = parse_uint(w) {
                    // `n g R`?
                    let save = self.pos;
                    if let (Some(_), true) = (self.uint(), self.keyword(b"R")) {
                        return Ok(Obj::Ref(
                            u32::try_from(n).map_err(|_| FileError::Malformed)?,
                        ));
                    }
                    self.pos = save;
                    return i64::try_from(n)
                        .map(Obj::Int)
                        .map_err(|_| FileError::Malformed);
                }
                let text = std::str::from_utf8(w).map_err(|_| FileError::Malformed)?;
                if let Ok(i) = text.parse::<i64>() {
                    return Ok(Obj::Int(i));
                }
                match text.parse::<f64>() {
                    Ok(r)
                        if r.is_finite()
                            && text
                                .bytes()
                                .all(|c| c.is_ascii_digit() || b"+-.".contains(&c)) =>
                    {
                        Ok(Obj::Real(r))
                    }
                    _ => {
                        self.pos = start;
                        Err(FileError::Malformed)
                    }
                }
            }
        }
    }

    /// Skips a literal string: balanced parentheses, backslash escapes.
    fn literal_string(&mut self) -> Result<Obj, FileError> {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => self.pos = (self.pos + 1).min(self.data.len()),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(Obj::Str);
                    }
                }
                _ => {}
            }
        }
        Err(FileError::Malformed)
    }
}

/// Digits only, as a number.
pub(crate) fn parse_uint(w: &[u8]) -> Option<u64> {
    if w.is_empty() || w.len() > 19 || !w.iter().all(u8::is_ascii_digit) {
        return None;
    }
    w.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// An indirect object read at a byte offset: `n g obj <object> [stream … endstream]`.
pub(crate) struct Indirect<'a> {
    pub(crate) num: u32,
    pub(crate) obj: Obj,
    /// The raw (still encoded) stream data, when the object is a stream.
    pub(crate) stream: Option<&'a [u8]>,
}

/// Reads the indirect object that starts at `offset`.
pub(crate) fn indirect_at(data: &[u8], offset: usize) -> Result<Indirect<'_>, FileError> {
    if offset >= data.len() {
        return Err(FileError::Malformed);
    }
    let mut lx = Lexer::new(data, offset);
    let num = lx.uint().ok_or(FileError::Malformed)?;
    lx.uint().ok_or(FileError::Malformed)?;
    if !lx.keyword(b"obj") {
        return Err(FileError::Malformed);
    }
    let obj = lx.object(0)?;
    let stream = match &obj {
        Obj::Dict(dict) if lx.keyword(b"stream") => Some(stream_data(&mut lx, dict)?),
        _ => None,
    };
    Ok(Indirect {
        num: u32::try_from(num).map_err(|_| FileError::Malformed)?,
        obj,
        stream,
    })
}

/// The data after `stream`: `/Length` bytes when a direct length lands on `endstream`, else up
/// to the next `endstream`.
fn stream_data<'a>(lx: &mut Lexer<'a>, dict: &Dict) -> Result<&'a [u8], FileError> {
    let data = lx.data;
    let mut start = lx.pos;
    if data.get(start) == Some(&b'\r') {
        start += 1;
    }
    if data.get(start) == Some(&b'\n') {
        start += 1;
    }
    if let Some(len) = get(dict, b"Length").and_then(Obj::as_int) {
        let end = usize::try_from(len).ok().and_then(|l| start.checked_add(l));
        if let Some(end) = end.filter(|&e| e <= data.len()) {
            let mut after = Lexer::new(data, end);
            if after.keyword(b"endstream") {
                return Ok(&data[start..end]);
            }
        }
    }
    let rest = data.get(start..).ok_or(FileError::Malformed)?;
    let end = memchr::memmem::find(rest, b"endstream").ok_or(FileError::Malformed)?;
    let mut body = &rest[..end];
    if body.ends_with(b"\n") {
        body = &body[..body.len() - 1];
    }
    if body.ends_with(b"\r") {
        body = &body[..body.len() - 1];
    }
    Ok(body)
}

/// A stream's decoded data: no filter or `/FlateDecode`, with PNG predictors (what
/// cross-reference and object streams use), of at most `limit` bytes (a stream that would
/// inflate to more is refused, as other filters are).
pub(crate) fn decode_stream(dict: &Dict, raw: &[u8], limit: usize) -> Result<Vec<u8>, FileError> {
    let filter = match get(dict, b"Filter") {
        None | Some(Obj::Null) => None,
        Some(Obj::Name(n)) => Some(n.as_slice()),
        Some(Obj::Array(a)) if a.is_empty() => None,
        Some(Obj::Array(a)) if a.len() == 1 => match &a[0] {
            Obj::Name(n) => Some(n.as_slice()),
            _ => return Err(FileError::Malformed),
        },
        _ => return Err(FileError::Malformed),
    };
    let data = match filter {
        None if raw.len() <= limit => return Ok(raw.to_vec()),
        None => return Err(FileError::Malformed),
        Some(b"FlateDecode" | b"Fl") => inflate(raw, limit)?,
        Some(_) => return Err(FileError::Malformed),
    };
    let parms = match get(dict, b"DecodeParms") {
        Some(Obj::Dict(d)) => Some(d),
        Some(Obj::Array(a)) => a.first().and_then(Obj::as_dict),
        _ => None,
    };
    let predictor = parms
        .and_then(|p| get(p, b"Predictor"))
        .and_then(Obj::as_int);
    match predictor {
        None | Some(1) => Ok(data),
        Some(10..=15) => {
            let int = |key: &[u8], default: i64| {
                parms
                    .and_then(|p| get(p, key))
                    .and_then(Obj::as_int)
                    .unwrap_or(default)
            };
            let (columns, colors, bits) = (
                int(b"Columns", 1),
                int(b"Colors", 1),
                int(b"BitsPerComponent", 8),
            );
            let bits_per_pixel = colors.checked_mul(bits).filter(|&b| (1..=64).contains(&b));
            let row = bits_per_pixel
                .and_then(|b| b.checked_mul(columns))
                .filter(|&r| r > 0 && r <= 1 << 24)
                .ok_or(FileError::Malformed)?;
            let bpp = (bits_per_pixel.unwrap_or(8) as usize).div_ceil(8);
            png_unpredict(&data, (row as usize).div_ceil(8), bpp)
        }
        Some(_) => Err(FileError::Malformed),
    }
}

/// zlib (or, failing that, raw deflate) data, inflated up to `limit` bytes (and
/// [`MAX_INFLATED`]): a stream that would inflate to more is an error, not read in part.
pub(crate) fn inflate(raw: &[u8], limit: usize) -> Result<Vec<u8>, FileError> {
    use miniz_oxide::inflate::{decompress_to_vec_with_limit, decompress_to_vec_zlib_with_limit};
    // Deflate expands at most 1032:1.
    let limit = raw
        .len()
        .saturating_mul(1032)
        .clamp(64, MAX_INFLATED)
        .min(limit);
    match decompress_to_vec_zlib_with_limit(raw, limit) {
        Ok(v) => return Ok(v),
        // A stream cut short or with a bad checksum still yields what it inflated.
        Err(e)
            if !e.output.is_empty()
                && e.status != miniz_oxide::inflate::TINFLStatus::HasMoreOutput =>
        {
            return Ok(e.output)
        }
        // What the zlib attempt inflated is freed before the raw deflate one: never two
        // buffers of `limit` at once.
        Err(e) => drop(e),
    }
    decompress_to_vec_with_limit(raw, limit).map_err(|_| FileError::Malformed)
}

/// Undoes PNG row predictors: each row is a filter byte then `row` bytes.
fn png_unpredict(data: &[u8], row: usize, bpp: usize) -> Result<Vec<u8>, FileError> {
    let mut out = Vec::with_capacity(data.len());
    let mut prev = vec![0u8; row];
    for chunk in data.chunks(row + 1) {
        if chunk.len() < row + 1 {
            break;
        }
        let (filter, src) = (chunk[0], &chunk[1..]);
        let mut cur = src.to_vec();
        for i in 0..row {
            let left = if i >= bpp { cur[i - bpp] } else { 0 };
            let up = prev[i];
            let up_left = if i >= bpp { prev[i - bpp] } else { 0 };
            let add = match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((u16::from(left) + u16::from(up)) / 2) as u8,
                4 => paeth(left, up, up_left),
                _ => return Err(FileError::Malformed),
            };
            cur[i] = cur[i].wrapping_add(add);
        }
        out.extend_from_slice(&cur);
        prev = cur;
    }
    Ok(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Obj, FileError> {
        Lexer::new(text.as_bytes(), 0).object(0)
    }

    #[test]
    fn objects() {
        assert_eq!(parse("12 0 R"), Ok(Obj::Ref(12)));
        assert_eq!(parse("12 0"), Ok(Obj::Int(12)));
        assert_eq!(parse("-3.5"), Ok(Obj::Real(-3.5)));
        assert_eq!(parse("(a (b) \\) c)"), Ok(Obj::Str));
        let dict = parse("<</Type/Pages/Kids[3 0 R 4 0 R]/Count 2 % comment\n/X<00ff>>>").unwrap();
        let dict = dict.as_dict().unwrap();
        assert!(get(dict, b"Type").unwrap().is_name(b"Pages"));
        assert_eq!(get(dict, b"Count"), Some(&Obj::Int(2)));
        assert_eq!(
            get(dict, b"Kids"),
            Some(&Obj::Array(vec![Obj::Ref(3), Obj::Ref(4)]))
        );
        assert_eq!(get(dict, b"X"), Some(&Obj::Str));
        assert_eq!(parse(&"[".repeat(1000)), Err(FileError::Malformed));
        assert_eq!(parse("<< /A"), Err(FileError::Malformed));
        assert_eq!(parse("(open"), Err(FileError::Malformed));
    }

    #[test]
    fn streams_with_and_without_a_length() {
        let pdf = b"7 0 obj <</Length 3>> stream\nabc\nendstream endobj";
        let obj = indirect_at(pdf, 0).unwrap();
        assert_eq!((obj.num, obj.stream), (7, Some(&b"abc"[..])));
        let pdf = b"7 0 obj <</Length 8 0 R>> stream\r\nabcd\r\nendstream endobj";
        assert_eq!(indirect_at(pdf, 0).unwrap().stream, Some(&b"abcd"[..]));
    }

    #[test]
    fn png_up_predictor() {
        // Two rows of 2 bytes, filter 2 (up).
        let data = [2, 1, 2, 2, 1, 1];
        assert_eq!(png_unpredict(&data, 2, 1).unwrap(), vec![1, 2, 2, 3]);
    }
}
