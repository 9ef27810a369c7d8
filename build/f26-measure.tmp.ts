import { bundleLoader, checkLoaderBudget } from '/work/wt/follow26/build/embed-loader.ts';

const code = await bundleLoader();
console.log(checkLoaderBudget(code).report);
