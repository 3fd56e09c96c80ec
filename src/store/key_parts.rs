//! The macro that makes the features' axes of a cell's key from their list in
//! `features/key.rs`: the value the store's `CellKey` holds last, its reader, its words
//! and its columns. The core reads, writes, labels and tabulates the axes through that
//! value, so it names none of them.

/// Makes `KeyParts` from the names of the features' axes, one a line, in the keys'
/// order. Each name is an axis of `features::matrix::CellAxes` too, which names the
/// cell's value of the axis as its key in the result file holds it.
macro_rules! key_parts {
    ($($axis:ident,)*) => {
        /// The features' axes of a cell, by the names the matrix gives their values.
        /// Each is a key of the cell in its launch records, written after the core's keys
        /// and only when the matrix has that axis, so a file written before the axis
        /// existed reads as a cell without it. The fields' order is the keys' order, and
        /// the order in which cells sort.
        #[derive(
            Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        pub struct KeyParts {
            $(
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $axis: Option<String>,
            )*
        }

        impl KeyParts {
            /// The names of a plan's cell's values of the features' axes.
            pub fn of(axes: &crate::features::matrix::CellAxes) -> KeyParts {
                KeyParts {
                    $($axis: axes.name_of(stringify!($axis)),)*
                }
            }

            $crate::units::optional_keys_reader!($($axis),*);

            /// The words that name the cell's values after its core axes, such as
            /// ` setting=4k memory=1g`, empty for a cell without any.
            pub fn words(&self) -> String {
                let mut words = String::new();
                $(if let Some(value) = &self.$axis {
                    words += &format!(" {}={value}", stringify!($axis));
                })*
                words
            }

            /// An empty value of each axis that one of `cells` has, and none of the
            /// others. A table of the cells gives each of those axes a column, and a cell
            /// without the axis gets an empty cell in it.
            pub fn columns_of<'a>(cells: impl IntoIterator<Item = &'a KeyParts>) -> KeyParts {
                let mut columns = KeyParts::default();
                for cell in cells {
                    $(if cell.$axis.is_some() {
                        columns.$axis = Some(String::new());
                    })*
                }
                columns
            }

            /// The cell's values, with `columns`' empty value for each axis the cell
            /// lacks.
            pub fn in_columns(&self, columns: &KeyParts) -> KeyParts {
                KeyParts {
                    $($axis: self.$axis.clone().or_else(|| columns.$axis.clone()),)*
                }
            }
        }
    };
}
pub(crate) use key_parts;

#[cfg(test)]
mod tests {
    use crate::features::key::KeyParts;
    use crate::features::matrix::CellAxes;

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
