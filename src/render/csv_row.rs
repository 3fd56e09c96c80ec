//! A row of the CSV of cells as columns: each key serde writes of a value, with the
//! text the csv crate writes for its value, so that a new figure of a cell is a new
//! column of every CSV. A value that is a struct, a list or a map is no column, because a
//! CSV row holds no nested object. The figures the JSON nests give flat columns of their
//! own, such as the heap's `analyze::heap::HeapColumns`.
//!
//! A row is a struct, a map or a tuple of them. A struct with a `#[serde(flatten)]` field
//! is written as a map, and the cell's row flattens its parts.

use serde::Serialize;
use serde::ser::{self, Error as _, Impossible, SerializeMap, SerializeStruct, SerializeTuple};

type Error = serde_json::Error;

/// The columns of `row`, each its key and its value's text, in the order serde writes
/// them.
pub(crate) fn columns<T: Serialize + ?Sized>(row: &T) -> Vec<(String, String)> {
    let mut columns = Columns::default();
    row.serialize(&mut columns)
        .expect("a CSV row is a struct, a map or a tuple of them");
    columns.taken
}

/// The columns taken so far, and a map's key whose value comes next.
#[derive(Default)]
struct Columns {
    taken: Vec<(String, String)>,
    key: Option<String>,
}

impl Columns {
    /// Takes `value` as the column `key`, unless it is nested.
    fn take<V: Serialize + ?Sized>(&mut self, key: String, value: &V) {
        if let Ok(text) = value.serialize(Text) {
            self.taken.push((key, text));
        }
    }
}

fn not_a_row() -> Error {
    Error::custom("a CSV row is a struct, a map or a tuple of them")
}

/// The methods of a serializer that refuse their value with `$error`.
macro_rules! refused {
    ($error:expr; $($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, Error> {
            Err($error)
        })*
    };
}

/// The methods of a serializer that refuse a generic value with `$error`.
macro_rules! refused_values {
    ($error:expr; $ok:ty) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<$ok, Error> {
            Err($error)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<$ok, Error> {
            Err($error)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<$ok, Error> {
            Err($error)
        }
    };
}

impl ser::Serializer for &mut Columns {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        Ok(self)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self, Error> {
        Ok(self)
    }

    refused! { not_a_row();
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant;
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant;
    }
    refused_values!(not_a_row(); ());
}

impl SerializeStruct for &mut Columns {
    type Ok = ();
    type Error = Error;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), Error> {
        self.take(key.to_owned(), value);
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeMap for &mut Columns {
    type Ok = ();
    type Error = Error;

    fn serialize_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), Error> {
        self.key = Some(key.serialize(Text)?);
        Ok(())
    }

    fn serialize_value<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::custom("a value without its key"))?;
        self.take(key, value);
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeTuple for &mut Columns {
    type Ok = ();
    type Error = Error;

    fn serialize_element<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), Error> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// A value's text as the csv crate writes it: numbers as `itoa` and `ryu` write them,
/// nothing for `None`, a unit variant's name. A nested value is refused.
struct Text;

fn nested() -> Error {
    Error::custom("a nested value is no column")
}

/// The methods of [`Text`] that write their value as `Display` does, as the csv crate
/// writes integers, text and switches.
macro_rules! displayed {
    ($($method:ident($arg:ty);)*) => {
        $(fn $method(self, v: $arg) -> Result<String, Error> {
            Ok(v.to_string())
        })*
    };
}

impl ser::Serializer for Text {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    displayed! {
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_str(&str);
        serialize_bool(bool);
        serialize_char(char);
    }

    fn serialize_f32(self, v: f32) -> Result<String, Error> {
        Ok(ryu::Buffer::new().format(v).to_owned())
    }

    fn serialize_f64(self, v: f64) -> Result<String, Error> {
        Ok(ryu::Buffer::new().format(v).to_owned())
    }

    fn serialize_none(self) -> Result<String, Error> {
        Ok(String::new())
    }

    fn serialize_unit(self) -> Result<String, Error> {
        Ok(String::new())
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<String, Error> {
        Ok(name.to_owned())
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_owned())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<String, Error> {
        v.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<String, Error> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Error> {
        Err(nested())
    }

    refused! { nested();
        serialize_bytes(&[u8]) -> String;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Inner {
        b: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u32>,
        c: Option<f64>,
    }

    #[derive(Serialize)]
    struct Flattened {
        a: &'static str,
        #[serde(flatten)]
        inner: Inner,
        nested: Vec<u32>,
        d: bool,
    }

    #[derive(Serialize)]
    struct Extra {
        e: f64,
    }

    /// A flattened struct's fields are columns in their place, a nested value is none,
    /// and numbers read as the csv crate writes them.
    #[test]
    fn a_row_is_its_keys_in_order_without_the_nested_values() {
        let row = Flattened {
            a: "x, y",
            inner: Inner {
                b: 1,
                gone: None,
                c: None,
            },
            nested: vec![1],
            d: true,
        };
        let taken = columns(&(&row, Extra { e: 1e20 }));
        let expected = [
            ("a", "x, y"),
            ("b", "1"),
            ("c", ""),
            ("d", "true"),
            ("e", "1e20"),
        ];
        let expected: Vec<(String, String)> = (expected.iter())
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(taken, expected);
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(Extra { e: 1e20 }).unwrap();
        let written = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(
            written, "e\n1e20\n",
            "the csv crate writes numbers as ryu does"
        );
    }

    #[test]
    fn a_single_value_is_no_row() {
        let mut columns = Columns::default();
        assert!(3u32.serialize(&mut columns).is_err());
    }
}
