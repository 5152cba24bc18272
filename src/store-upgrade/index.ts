/** `acon runs upgrade`: the one-time conversion of a file of the store before v2 (schema 12). */
export { upgradeDatabase, type Upgrade } from './upgrade.js';
