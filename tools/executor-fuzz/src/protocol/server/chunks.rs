//! A server finding's input: the chunks sent on its connection, each as a
//! little-endian u32 length and its bytes.

/// The chunks of a finding's input: each as a little-endian u32 length and
/// its bytes.
pub fn encode_chunks(chunks: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

pub fn decode_chunks(mut bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut chunks = Vec::new();
    while !bytes.is_empty() {
        let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        chunks.push(bytes.get(4..4 + len)?.to_vec());
        bytes = &bytes[4 + len..];
    }
    Some(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip() {
        let chunks = vec![vec![1, 2, 3], vec![], vec![9; 300]];
        assert_eq!(decode_chunks(&encode_chunks(&chunks)), Some(chunks));
        assert_eq!(decode_chunks(&[5, 0, 0, 0, 1]), None);
    }
}
