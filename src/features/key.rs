//! The features' axes of a cell's key, as one value that the store's `CellKey` holds
//! last. The core reads, writes, labels and tabulates them through this value, so it
//! names none of them.
//!
//! The list is a file of its own, of the store's stage, because the imports run one
//! way. The store's records read it, and `features/record.rs` reads the store, so a
//! list in that file would sit in an import circle.

use serde::{Deserialize, Serialize};

use crate::features::matrix::CellAxes;
use crate::units::{SeenKeys, read_optional_once};

/// The features' axes of a cell, by the names the matrix gives their values. Each is a
/// key of the cell in its launch records, written after the core's keys and only when
/// the matrix has that axis, so a file written before the axis existed reads as a cell
/// without it. The fields' order is the keys' order, and the order in which cells sort.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct KeyParts {
    /// The `settings:` value's name, a named set of kernel writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<String>,
    /// The `memory:` limit's name, each launch in a memory cgroup of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

impl KeyParts {
    /// The names of a plan's cell's values of the features' axes.
    pub fn of(axes: &CellAxes) -> KeyParts {
        KeyParts {
            setting: axes.setting_name(),
            memory: axes.memory_name(),
        }
    }

    /// Reads the value of `key` into its axis when the key is a feature's, and says
    /// whether it was. A key given twice is refused, naming it, as the launch record's
    /// reader refuses its own keys, and `seen` remembers the keys read. A `null` reads
    /// as no value, as the derived reader read it.
    pub fn read_key<'de, A: serde::de::MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
        seen: &mut SeenKeys,
    ) -> Result<bool, A::Error> {
        match key {
            "setting" => read_optional_once(&mut self.setting, "setting", map, seen)?,
            "memory" => read_optional_once(&mut self.memory, "memory", map, seen)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Each axis with its name, and the cell's value when it has one, in the keys'
    /// order.
    fn axes(&self) -> [(&'static str, Option<&str>); 2] {
        [
            ("setting", self.setting.as_deref()),
            ("memory", self.memory.as_deref()),
        ]
    }

    /// The words that name the cell's values after its core axes, such as
    /// ` setting=4k memory=1g`, empty for a cell without any.
    pub fn words(&self) -> String {
        (self.axes().into_iter())
            .filter_map(|(name, value)| Some(format!(" {name}={}", value?)))
            .collect()
    }

    /// An empty value of each axis that one of `cells` has, and none of the others. A
    /// table of the cells gives each of those axes a column, and a cell without the
    /// axis gets an empty cell in it.
    pub fn columns_of<'a>(cells: impl IntoIterator<Item = &'a KeyParts>) -> KeyParts {
        let mut columns = KeyParts::default();
        for cell in cells {
            if cell.setting.is_some() {
                columns.setting = Some(String::new());
            }
            if cell.memory.is_some() {
                columns.memory = Some(String::new());
            }
        }
        columns
    }

    /// The cell's values, with `columns`' empty value for each axis the cell lacks.
    pub fn in_columns(&self, columns: &KeyParts) -> KeyParts {
        KeyParts {
            setting: self.setting.clone().or_else(|| columns.setting.clone()),
            memory: self.memory.clone().or_else(|| columns.memory.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(setting: Option<&str>, memory: Option<&str>) -> KeyParts {
        KeyParts {
            setting: setting.map(str::to_owned),
            memory: memory.map(str::to_owned),
        }
    }

    #[test]
    fn the_words_name_each_value_the_cell_has_in_the_keys_order() {
        assert_eq!(parts(None, None).words(), "");
        assert_eq!(parts(Some("4k"), None).words(), " setting=4k");
        assert_eq!(parts(None, Some("1g")).words(), " memory=1g");
        assert_eq!(
            parts(Some("4k"), Some("1g")).words(),
            " setting=4k memory=1g"
        );
    }

    #[test]
    fn a_plans_cell_keeps_its_names_and_its_words() {
        let m = crate::matrix::Matrix::parse(
            "m",
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n\
             settings: [{name: a}, {name: b}]\nmemory: [1g]\n",
        )
        .unwrap();
        let axes = m.features.outer_values()[1].and(&m.features.inner_values()[0]);
        let key = KeyParts::of(&axes);
        assert_eq!(key, parts(Some("b"), Some("1g")));
        assert_eq!(key.words(), axes.describe());
        assert_eq!(KeyParts::of(&CellAxes::default()), KeyParts::default());
    }

    #[test]
    fn a_column_is_there_when_any_cell_has_the_axis_and_empty_where_one_lacks_it() {
        let cells = [parts(Some("4k"), None), parts(None, None)];
        let columns = KeyParts::columns_of(&cells);
        assert_eq!(columns, parts(Some(""), None));
        assert_eq!(cells[0].in_columns(&columns), parts(Some("4k"), None));
        assert_eq!(cells[1].in_columns(&columns), parts(Some(""), None));
        assert_eq!(KeyParts::columns_of(&[]), KeyParts::default());
    }

    #[test]
    fn the_keys_are_written_in_order_and_only_when_there_and_read_back() {
        let both = parts(Some("4k"), Some("1g"));
        let text = serde_json::to_string(&both).unwrap();
        assert_eq!(text, r#"{"setting":"4k","memory":"1g"}"#);
        assert_eq!(serde_json::from_str::<KeyParts>(&text).unwrap(), both);
        assert_eq!(serde_json::to_string(&KeyParts::default()).unwrap(), "{}");
        assert_eq!(
            serde_json::from_str::<KeyParts>(r#"{"setting":null}"#).unwrap(),
            KeyParts::default()
        );
    }

    #[test]
    fn cells_sort_by_their_setting_first_then_by_their_memory_limit() {
        let mut cells = vec![
            parts(Some("b"), Some("1g")),
            parts(Some("a"), Some("2g")),
            parts(None, Some("1g")),
            parts(Some("a"), Some("1g")),
        ];
        cells.sort();
        assert_eq!(
            cells,
            [
                parts(None, Some("1g")),
                parts(Some("a"), Some("1g")),
                parts(Some("a"), Some("2g")),
                parts(Some("b"), Some("1g")),
            ]
        );
    }
}
