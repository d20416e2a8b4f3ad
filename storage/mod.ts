/**
 * The storage area of fetchbase.
 *
 * @module
 */

export {};
