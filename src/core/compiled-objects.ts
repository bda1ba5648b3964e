import * as z from 'zod/mini';
import { buildObjectsWith } from '../schemas/objects.js';

/**
 * zod/mini's object schema with the parser zod's classic API gives its objects: compiled on first
 * parse into one function per shape (zod's `$ZodObjectJIT`), which zod itself skips where
 * `new Function` is refused. Its trait keeps the name, so it is still a `z.ZodMiniObject`, and
 * `z.extend()`, `z.partial()` and `z.catchall()` build the same kind.
 */
/** The two constructors' `init`, typed without their assertion so that they can be called here. */
interface Initialises {
  init(inst: z.ZodMiniObject, def: z.core.$ZodObjectDef): void;
}
const compiledParser: Initialises = z.core.$ZodObjectJIT;
const miniType: Initialises = z.ZodMiniType;

const CompiledObject = z.core.$constructor<z.ZodMiniObject>('ZodMiniObject', (inst, def) => {
  compiledParser.init(inst, def);
  miniType.init(inst, def);
  z.core.util.installLazyProp(inst, 'shape', (self: z.ZodMiniObject) => self._zod.def.shape, false);
});

/**
 * Has the SDK's object schemas built with the compiled parser (schemas/objects.ts): the Node
 * build's choice. The web build's twin (compiled-objects.web.ts) keeps zod/mini's parser.
 */
export function compileObjects(): void {
  buildObjectsWith(CompiledObject);
}
