// @ts-check
/**
 * TypeDoc plugin for the API reference (`npm run docs`): public answer types are interfaces that
 * extend their zod schema's inferred type (`interface Sim extends z.infer<…>`), so that one schema
 * is the source of shape, check and type. The reference shows their members; this drops the
 * schema expression from their "Hierarchy", where it would only name an internal schema.
 */
import { Converter, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of context.project.getReflectionsByKind(ReflectionKind.Interface)) {
      const declaration = /** @type {import('typedoc').DeclarationReflection} */ (reflection);
      if (!declaration.extendedTypes) continue;
      const kept = declaration.extendedTypes.filter((type) => !/\btypeof\b|\b(?:output|input|infer)</.test(type.toString()));
      declaration.extendedTypes = kept.length > 0 ? kept : undefined;
    }
  });
}
