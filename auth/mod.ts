/**
 * The auth area of fetchbase.
 *
 * @module
 */

export {};
