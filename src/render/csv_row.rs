//! A CSV row from a value that serde writes as a map. The csv crate writes a struct's
//! fields as columns but refuses maps, and serde writes a struct with a
//! `#[serde(flatten)]` field as a map (the cell's row flattens the features' figures in
//! among its own). [`AsStruct`] hands the map's entries to the csv writer as a struct's
//! fields, in the order they come, so that the header names the keys and the row holds
//! their values, as if the struct had no flattened field.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use serde::ser::{Error, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

/// `T` written as a struct's fields, whether serde writes it as a struct or a map.
pub(crate) struct AsStruct<'a, T>(pub &'a T);

impl<T: Serialize> Serialize for AsStruct<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Fields(serializer))
    }
}

/// A serializer that takes a struct or a map, and gives both to `S` as a struct.
struct Fields<S>(S);

/// The error for a value that is neither a struct nor a map.
fn not_fields<E: Error>() -> E {
    E::custom("a CSV row is a struct or a map of columns, not a single value or a list")
}

/// A column's name as the struct writer wants it, `'static`: a map's keys are field
/// names, a few dozen, so each is kept once for the program's life.
fn column_name(name: String) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = names.get(name.as_str()) {
        return known;
    }
    let kept: &'static str = Box::leak(name.into_boxed_str());
    names.insert(kept);
    kept
}

/// The text of a map's key, which for a flattened struct is a field's name.
fn key_text<K: ?Sized + Serialize, E: Error>(key: &K) -> Result<&'static str, E> {
    match serde_json::to_value(key) {
        Ok(serde_json::Value::String(name)) => Ok(column_name(name)),
        _ => Err(E::custom("a CSV column's name must be a string")),
    }
}

/// Every method of a value that is not a row, each refused with [`not_fields`].
macro_rules! refused {
    ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, Self::Error> {
            Err(not_fields())
        })*
    };
}

impl<S: Serializer> Serializer for Fields<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Row<S::SerializeStruct>;
    type SerializeStruct = S::SerializeStruct;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, Self::Error> {
        Ok(Row {
            fields: self.0.serialize_struct("row", len.unwrap_or(0))?,
            key: None,
        })
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, Self::Error> {
        self.0.serialize_struct(name, len)
    }

    refused! {
        serialize_bool(bool) -> S::Ok;
        serialize_i8(i8) -> S::Ok;
        serialize_i16(i16) -> S::Ok;
        serialize_i32(i32) -> S::Ok;
        serialize_i64(i64) -> S::Ok;
        serialize_u8(u8) -> S::Ok;
        serialize_u16(u16) -> S::Ok;
        serialize_u32(u32) -> S::Ok;
        serialize_u64(u64) -> S::Ok;
        serialize_f32(f32) -> S::Ok;
        serialize_f64(f64) -> S::Ok;
        serialize_char(char) -> S::Ok;
        serialize_str(&str) -> S::Ok;
        serialize_bytes(&[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(&'static str) -> S::Ok;
        serialize_unit_variant(&'static str, u32, &'static str) -> S::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeTupleVariant;
        serialize_struct_variant(&'static str, u32, &'static str, usize)
            -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<S::Ok, S::Error> {
        Err(not_fields())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(not_fields())
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(not_fields())
    }
}

/// A map's entries, written as the fields of the struct `fields`.
struct Row<F> {
    fields: F,
    /// The key whose value comes next, when they come apart.
    key: Option<&'static str>,
}

impl<F: SerializeStruct> SerializeMap for Row<F> {
    type Ok = F::Ok;
    type Error = F::Error;

    fn serialize_key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), F::Error> {
        self.key = Some(key_text(key)?);
        Ok(())
    }

    fn serialize_value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), F::Error> {
        let key = (self.key.take()).ok_or_else(|| F::Error::custom("a value without its key"))?;
        self.fields.serialize_field(key, value)
    }

    fn serialize_entry<K: ?Sized + Serialize, V: ?Sized + Serialize>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), F::Error> {
        self.fields.serialize_field(key_text(key)?, value)
    }

    fn end(self) -> Result<F::Ok, F::Error> {
        self.fields.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

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
        d: bool,
    }

    #[derive(Serialize)]
    struct Plain {
        a: &'static str,
        b: u32,
        c: Option<f64>,
        d: bool,
    }

    #[derive(Serialize)]
    struct Extra {
        e: u8,
    }

    fn csv_of<T: Serialize>(rows: &[T]) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        for row in rows {
            w.serialize(row).unwrap();
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn a_flattened_struct_gives_the_columns_of_the_same_struct_written_out() {
        let flattened = [
            Flattened {
                a: "x, y",
                inner: Inner {
                    b: 1,
                    gone: None,
                    c: Some(2.5),
                },
                d: true,
            },
            Flattened {
                a: "z",
                inner: Inner {
                    b: 2,
                    gone: None,
                    c: None,
                },
                d: false,
            },
        ];
        let plain = [
            Plain {
                a: "x, y",
                b: 1,
                c: Some(2.5),
                d: true,
            },
            Plain {
                a: "z",
                b: 2,
                c: None,
                d: false,
            },
        ];
        let rows: Vec<_> = (flattened.iter())
            .map(|f| (AsStruct(f), Extra { e: 7 }))
            .collect();
        let expected: Vec<_> = plain.iter().map(|p| (p, Extra { e: 7 })).collect();
        let written = csv_of(&rows);
        assert_eq!(written, csv_of(&expected));
        assert!(
            written.starts_with("a,b,c,d,e\n\"x, y\",1,2.5,true,7\n"),
            "{written}"
        );
    }

    #[test]
    fn the_csv_writer_alone_refuses_a_flattened_struct() {
        let mut w = csv::Writer::from_writer(Vec::new());
        let row = Flattened {
            a: "x",
            inner: Inner {
                b: 1,
                gone: None,
                c: None,
            },
            d: true,
        };
        assert!(w.serialize(&row).is_err(), "AsStruct would not be needed");
        assert!(w.serialize(AsStruct(&row)).is_ok());
    }

    #[test]
    fn a_single_value_is_no_row() {
        let mut w = csv::Writer::from_writer(Vec::new());
        assert!(w.serialize(AsStruct(&3u32)).is_err());
    }
}
