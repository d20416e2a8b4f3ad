/**
 * The database area of fetchbase.
 *
 * @module
 */

export {};
