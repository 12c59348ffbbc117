//! Byte vectors as serde "bytes": on the wire exactly what a sequence of `u8`
//! is in postcard (a varint length, then the bytes), but encoded and decoded
//! in one copy instead of byte by byte.

use serde::{Deserializer, Serializer, de};

pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    deserializer.deserialize_byte_buf(BytesVisitor)
}

struct BytesVisitor;

impl<'de> de::Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("bytes")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
        Ok(bytes.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(bytes)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut sequence: A) -> Result<Vec<u8>, A::Error> {
        // Formats without a bytes type hand the bytes over one by one.
        let mut bytes = Vec::with_capacity(sequence.size_hint().unwrap_or(0).min(4096));
        while let Some(byte) = sequence.next_element()? {
            bytes.push(byte);
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    #[test]
    fn raw_bytes_are_encoded_like_a_sequence_of_u8() {
        // The bytes helper is an optimization, not a format change.
        #[derive(Serialize)]
        struct AsBytes(#[serde(with = "super")] Vec<u8>);
        #[derive(Serialize)]
        struct AsSequence(Vec<u8>);
        let bytes = vec![9u8; 300];
        let as_bytes = postcard::to_stdvec(&AsBytes(bytes.clone())).unwrap();
        let as_sequence = postcard::to_stdvec(&AsSequence(bytes)).unwrap();
        assert_eq!(as_bytes, as_sequence);
    }
}
