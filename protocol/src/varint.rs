//! Postcard's integers on the wire, for the hand-written codecs: a `u64` as a
//! varint (7 bits a byte, low bits first, the high bit set on every byte but
//! the last) and an `i64` zigzagged into a `u64` first.

use super::ProtocolError;

pub fn push_varint(bytes: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        bytes.push(value as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

/// How many bytes [`push_varint`] writes for `value`.
pub fn varint_len(value: u64) -> usize {
    (64 - value.max(1).leading_zeros() as usize).div_ceil(7)
}

pub fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

pub fn unzigzag(value: u64) -> i64 {
    (value >> 1) as i64 ^ -((value & 1) as i64)
}

/// The value of the varint `bytes` (its last byte's high bit clear), refused
/// when it has `max_bytes` bytes and the last is over `max_last` (so that it
/// fits its type: 0x01 for a `u64` of 10 bytes).
pub fn decode_varint(bytes: &[u8], max_bytes: usize, max_last: u8) -> Result<u64, ProtocolError> {
    if bytes.len() == max_bytes && bytes[max_bytes - 1] > max_last {
        return Err(over_long_varint());
    }
    Ok(bytes.iter().enumerate().fold(0, |value, (index, byte)| {
        value | u64::from(byte & 0x7f) << (7 * index)
    }))
}

/// Takes a `u64` varint from the front of `bytes`.
pub fn take_varint(bytes: &mut &[u8]) -> Result<u64, ProtocolError> {
    // Most are one byte.
    if let Some((&byte, rest)) = bytes.split_first()
        && byte < 0x80
    {
        *bytes = rest;
        return Ok(byte.into());
    }
    let window = &bytes[..bytes.len().min(10)];
    let Some(last) = window.iter().position(|byte| byte & 0x80 == 0) else {
        return Err(if window.len() == 10 {
            over_long_varint()
        } else {
            ProtocolError::Malformed("the message ends inside a varint".to_owned())
        });
    };
    let value = decode_varint(&window[..=last], 10, 0x01)?;
    *bytes = &bytes[last + 1..];
    Ok(value)
}

pub fn over_long_varint() -> ProtocolError {
    ProtocolError::Malformed("an over-long varint".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_len_counts_the_bytes_push_varint_writes() {
        for value in [0, 1, 0x7f, 0x80, 0x3fff, 0x4000, u64::MAX >> 1, u64::MAX] {
            let mut bytes = Vec::new();
            push_varint(&mut bytes, value);
            assert_eq!(varint_len(value), bytes.len(), "{value:#x}");
        }
    }

    #[test]
    fn take_varint_takes_what_push_varint_wrote_and_refuses_the_rest() {
        for value in [0, 1, 0x80, u64::MAX] {
            let mut bytes = Vec::new();
            push_varint(&mut bytes, value);
            bytes.push(7);
            let mut rest = &bytes[..];
            assert_eq!(take_varint(&mut rest).unwrap(), value);
            assert_eq!(rest, [7]);
        }
        for value in [i64::MIN, -3, 0, i64::MAX] {
            assert_eq!(unzigzag(zigzag(value)), value);
        }
        // Cut short, and 10 bytes whose value needs 65 bits.
        let mut over_long = vec![0xff; 9];
        over_long.push(0x02);
        for bytes in [&[][..], &[0x80, 0x80], &over_long] {
            assert!(take_varint(&mut &bytes[..]).is_err(), "{bytes:?}");
        }
    }

    #[test]
    fn integers_are_encoded_as_postcard_encodes_them() {
        for value in [0u64, 1, 127, 128, 300, u64::MAX] {
            let mut bytes = Vec::new();
            push_varint(&mut bytes, value);
            assert_eq!(bytes, postcard::to_stdvec(&value).unwrap());
        }
        for value in [0i64, -1, 1, i64::MIN, i64::MAX] {
            let mut bytes = Vec::new();
            push_varint(&mut bytes, zigzag(value));
            assert_eq!(bytes, postcard::to_stdvec(&value).unwrap());
        }
    }
}
